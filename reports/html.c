/* html.c: escaping by format, file names, the page frame and the gnuplot run shared by the
 * report's pages (see html.h). The style sheet makes tables readable in a
 * browser window: they scroll inside their own box, headers stay in view,
 * long names wrap, numbers align right; plots take the full width. The
 * script sorts a table of class 'sortable' by the column whose header is
 * clicked (a cell's data-v, when present, is its sort key). */
#include "reports/html.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int isalnum_c(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

void mcb_html_escape(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else if (*s == '"') fputs("&quot;", f);
        else if (*s == '\'') fputs("&#39;", f);
        else fputc(*s, f);
    }
}

void mcb_url_escape(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (isalnum_c((char)c) || strchr("-._~/", c)) fputc(c, f);
        else fprintf(f, "%%%02X", c);
    }
}

void mcb_gp_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; s && *s; s++) {
        if (*s == '\'') fputs("''", f);
        else fputc((unsigned char)*s < 32 ? '?' : *s, f);
    }
    fputc('\'', f);
}

void mcb_gp_text(FILE *f, const char *what, const char *text)
{
    fprintf(f, "set %s ", what);
    mcb_gp_quote(f, text);
    fputs(" noenhanced\n", f);
}

void mcb_csv_field(FILE *f, const char *s)
{
    if (!s) return;
    size_t n = strlen(s);
    if (!strpbrk(s, ",\"\r\n") && !(n && (s[0] == ' ' || s[n - 1] == ' '))) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void mcb_md_cell(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|') fputs("\\|", f);
        else fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
}

void mcb_safe_name(const char *s, char *out, size_t len)
{
    size_t k = 0;
    for (; *s && k + 1 < len; s++)
        out[k++] = (isalnum_c(*s) || *s == '-' || *s == '_') ? *s : '_';
    out[k] = '\0';
}

FILE *mcb_report_open(const char *dir, const char *base, const char *ext, mcb_err *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s%s", dir, base, ext);
    FILE *f = fopen(path, "w");
    if (!f) mcb_fail(err, MCB_E_IO, "%s: cannot write (%s)", path, strerror(errno));
    return f;
}

void mcb_html_link(FILE *f, const char *base, const char *suffix, const char *text)
{
    fputs("<a href='", f);
    mcb_url_escape(f, base);
    mcb_url_escape(f, suffix);
    fprintf(f, "'>%s</a>", text);
}

static const char style[] =
    "body{font-family:sans-serif;line-height:1.4;margin:1.5em auto;max-width:1400px;"
    "padding:0 1em;color:#222}\n"
    "h1{margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}\n"
    "nav{font-size:.95em;margin-bottom:.5em}\n"
    ".meta{color:#555;font-size:.92em}\n"
    ".warn{background:#fff4e0;border-left:4px solid #d08000;padding:.3em .6em}\n"
    ".tw{overflow:auto;max-height:80vh;max-width:100%;width:fit-content;margin:.8em 0;"
    "border:1px solid #ccc}\n"
    "table{border-collapse:separate;border-spacing:0}\n"
    "td,th{border-right:1px solid #ddd;border-bottom:1px solid #ddd;padding:3px 8px;"
    "vertical-align:top;overflow-wrap:anywhere}\n"
    "th{position:sticky;top:0;background:#eef1f7;text-align:left;z-index:1}\n"
    "table.sortable th{cursor:pointer}table.sortable th:after{content:' \\2195';color:#999}\n"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "td.ok{background:#eaf6ea}td.bad{background:#fbeaea}td.best{font-weight:bold}\n"
    /* the ranking: headings wrap, solver names never do */
    "table.ranking th{white-space:normal}"
    "table.ranking td:nth-child(2){white-space:nowrap;overflow-wrap:normal}\n"
    "table.tiers th{white-space:normal}"
    "table.tiers td:nth-child(2){white-space:nowrap;overflow-wrap:normal}\n"
    "figure{margin:1em 0}figure img{width:100%;height:auto;border:1px solid #eee}\n"
    "figcaption{color:#555;font-size:.92em}\n"
    "details{margin:.8em 0}summary{cursor:pointer;font-weight:bold}\n";

static const char sort_script[] =
    "<script>\n"
    "document.querySelectorAll('table.sortable').forEach(function (t) {\n"
    "  t.querySelectorAll('thead th').forEach(function (th, i) {\n"
    "    th.addEventListener('click', function () {\n"
    "      var b = t.tBodies[0], up = th.dataset.dir !== 'up';\n"
    "      var key = function (r) {\n"
    "        var c = r.cells[i]; return c ? (c.dataset.v || c.textContent) : '';\n"
    "      };\n"
    "      Array.from(b.rows).sort(function (x, y) {\n"
    "        var a = key(x), c = key(y), na = parseFloat(a), nc = parseFloat(c);\n"
    "        var d = !isNaN(na) && !isNaN(nc) ? na - nc : a.localeCompare(c);\n"
    "        return up ? d : -d;\n"
    "      }).forEach(function (r) { b.appendChild(r); });\n"
    "      th.dataset.dir = up ? 'up' : 'down';\n"
    "    });\n"
    "  });\n"
    "});\n"
    "</script>\n";

void mcb_html_begin(FILE *f, const char *title, const char *nav)
{
    fputs("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>\n"
          "<meta name='viewport' content='width=device-width, initial-scale=1'>\n<title>",
          f);
    mcb_html_escape(f, title);
    fprintf(f, "</title>\n<style>\n%s</style></head><body>\n", style);
    if (nav) fprintf(f, "<nav>%s</nav>\n", nav);
    fputs("<h1>", f);
    mcb_html_escape(f, title);
    fputs("</h1>\n", f);
}

void mcb_html_end(FILE *f)
{
    fputs(sort_script, f);
    fputs("</body></html>\n", f);
}

void mcb_fmt_num(char *buf, size_t len, double x)
{
    if (!isfinite(x)) snprintf(buf, len, "-");
    else snprintf(buf, len, "%.3g", x);
}

mcb_rc mcb_run_gnuplot(const char *dir, const char *gnuplot, const char *script, const char *log,
                       mcb_err *err)
{
    const char *prog = gnuplot ? gnuplot : "gnuplot";
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return mcb_fail(err, MCB_E_IO, "cannot start gnuplot (%s)", strerror(errno));
    if (pid == 0) {
        int fd = chdir(dir) == 0 ? open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666) : -1;
        if (fd < 0 || dup2(fd, STDERR_FILENO) < 0) _exit(126);
        execlp(prog, prog, script, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return mcb_fail(err, MCB_E_IO, "gnuplot: %s", strerror(errno));
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return MCB_OK;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        return mcb_fail(err, MCB_E_IO, "cannot run %s: is gnuplot installed? Debian package: "
                                       "gnuplot-nox", prog);
    return mcb_fail(err, MCB_E_IO, "gnuplot failed (%s %d; see %s/%s)",
                    WIFEXITED(st) ? "exit" : "signal",
                    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), dir, log);
}
