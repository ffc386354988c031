#!/usr/bin/env bash
# test_report_browser.sh MCBENCH [SHOT_DIR]: the report as a browser shows
# it. A small campaign (a stack, solvers pgs and pj), its report, then in
# headless Chromium (Debian package `chromium`) the summary page, a set page
# and a problem page: each loads (the DOM after its scripts ran ends with
# </html> and has its heading), every link and image it names resolves to a
# non-empty file of the report (images: PNG or SVG), the browser logs no
# console message (our pages log nothing; a script error or a resource that
# failed to load would be one), and the sort script sorts (a copy of the set
# page clicks the ranking's "rank" header twice: descending order). A page
# with a console error, a missing image and a dead link must be caught by
# the same checks, so they can fail. The summary's screenshot is kept as
# SHOT_DIR/report-summary.png (default: out/ of the source tree).
# Exits 77 (skipped), saying why, when chromium or python3 is missing or
# chromium cannot show an empty page here.
# MCB_CHROMIUM names another browser binary.
set -u
mcb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shots=${2:-$(cd "$(dirname "$0")/.." && pwd)/out}
chromium=${MCB_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$chromium" ] || [ ! -x "$chromium" ]; then
  echo "SKIP: no chromium (Debian package chromium; ./test.sh installs it when run as root)"
  exit 77
fi
if ! command -v python3 >/dev/null; then
  echo "SKIP: no python3 to check the pages' links"
  exit 77
fi
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL $*"; }
run() { # name command...: must exit 0
  local name=$1; shift
  if "$@" >"$d/out" 2>"$d/err"; then ok; else bad "$name: exit $?"; cat "$d/err"; fi
}

# root needs --no-sandbox; a private profile; no GPU or /dev/shm needs (CI)
flags=(--headless --disable-gpu --disable-dev-shm-usage --no-first-run --no-default-browser-check
       --disable-extensions --user-data-dir="$d/profile" --enable-logging=stderr --v=0)
[ "$(id -u)" -eq 0 ] && flags+=(--no-sandbox)
# a browser that cannot show an empty page here (a container without user
# namespaces for its sandbox: retried without it) is the machine's limit
probe() { timeout 120 "$chromium" "${flags[@]}" --dump-dom about:blank >"$d/probe.dom" 2>"$d/probe.log"; }
if ! probe; then
  case " ${flags[*]} " in *" --no-sandbox "*) ;; *) flags+=(--no-sandbox) ;; esac
  if ! probe; then
    echo "SKIP: $chromium does not start here: $(grep -v dbus "$d/probe.log" | tail -2)"
    exit 77
  fi
fi
# browse NAME FILE: the DOM into $d/NAME.dom, the browser's log into $d/NAME.log
browse() {
  timeout 120 "$chromium" "${flags[@]}" --virtual-time-budget=5000 --dump-dom "file://$2" \
    >"$d/$1.dom" 2>"$d/$1.log"
}

# check NAME DIR HEADING: the page loaded, its links and images resolve,
# no console message; prints what is wrong, exits 1 when anything is
cat >"$d/check.py" <<'EOF'
import html.parser, os, re, sys, urllib.parse
name, root, dom_path, log_path, heading = sys.argv[1:6]
dom = open(dom_path, encoding="utf-8", errors="replace").read()
log = open(log_path, encoding="utf-8", errors="replace").read()
bad = []
if not dom.rstrip().endswith("</html>"):
    bad.append("the page did not load (no DOM)")
if heading not in dom:
    bad.append("no heading %r" % heading)
class Refs(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs = []
    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("href", "src") and v is not None:
                self.refs.append((tag, v))
p = Refs()
p.feed(dom)
if not p.refs:
    bad.append("no links or images at all")
for tag, url in p.refs:
    u = urllib.parse.urlsplit(url)
    if u.scheme or u.netloc or url.startswith("#"):
        bad.append("%s names %s outside the report" % (tag, url))
        continue
    path = os.path.join(root, urllib.parse.unquote(u.path))
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        bad.append("%s %s does not resolve" % (tag, url))
    elif tag == "img":
        head = open(path, "rb").read(512)
        if not (head.startswith(b"\x89PNG") or b"<svg" in head):
            bad.append("img %s is neither PNG nor SVG" % url)
for line in log.splitlines():
    if re.search(r":CONSOLE|Uncaught|ERR_FILE_NOT_FOUND|Failed to load resource", line):
        bad.append("browser: " + line.strip()[:200])
for b in bad:
    print("%s: %s" % (name, b))
sys.exit(1 if bad else 0)
EOF
# page NAME FILE HEADING: browse and check
page() {
  browse "$1" "$2" || { bad "$1: chromium exit $? (log: $(grep -v dbus "$d/$1.log" | tail -3))"; return; }
  if python3 "$d/check.py" "$1" "$(dirname "$2")" "$d/$1.dom" "$d/$1.log" "$3" >"$d/$1.why"; then ok
  else bad "$1:"; cat "$d/$1.why"; fi
}

cd "$d" || exit 1
run gen "$mcb" gen stack --nx 2 --ny 2 --nz 2 --steps 3 -o "$d/stack.h5"
run run "$mcb" run "$d/stack.h5" -o "$d/runs/r.h5" --solvers pgs,pj --iters 300
run report "$mcb" report "$d/runs/r.h5" -o "$d/rep"
rep=$d/rep
page summary "$rep/index.html" "<h1>mcbench report</h1>"
page set "$rep/stack_set.html" "<h1>Problem set stack</h1>"
prob=$(ls "$rep" | grep -E '^stack_p[0-9]+\.html$' | head -1)
[ -n "$prob" ] && page problem "$rep/$prob" "<h1>Problem stack-" || bad "no problem page"
# issue 28: the accuracy tiers with their shifted geometric means, the claims
# against the verdicts, the speed-up table with its intervals and the
# machine's state render
for w in "Accuracy tiers" "shifted geometric mean" "Claimed against verified" \
  "Speed-up with confidence" "95% interval" "Machine during the runs"; do
  grep -qF "$w" "$d/summary.dom" && ok || bad "summary: no '$w' in the rendered page"
done
grep -qF "Speed-up with confidence" "$d/set.dom" && ok || bad "set: no speed-up table rendered"

# the sort script, in the browser: "rank" clicked twice sorts descending
sed 's#</body>#<script>var th = document.querySelector("table.ranking thead th");\
th.click(); th.click(); document.body.setAttribute("data-sorted", Array.from(\
document.querySelectorAll("table.ranking tbody tr td:first-child")).map(function (c) {\
return c.textContent; }).join(","));</script></body>#' "$rep/stack_set.html" >"$rep/sorted.html"
browse sorted "$rep/sorted.html"
grep -qF 'data-sorted="2,1"' "$d/sorted.dom" && ok ||
  bad "sort script: ranking not descending after two clicks ($(grep -o 'data-sorted="[^"]*"' "$d/sorted.dom"))"

# the checks catch what they look for: a console error, a missing image,
# a dead link
mkdir -p "$d/neg"
printf '%s\n' "<!DOCTYPE html><html><body><h1>x</h1><img src='missing.png'>" \
  "<a href='nowhere.html'>x</a><script>console.error('planted');</script></body></html>" >"$d/neg/neg.html"
browse negative "$d/neg/neg.html"
python3 "$d/check.py" negative "$d/neg" "$d/negative.dom" "$d/negative.log" "<h1>x</h1>" >"$d/neg.why"
for what in "img missing.png does not resolve" "a nowhere.html does not resolve" "planted"; do
  grep -qF "$what" "$d/neg.why" && ok || bad "the checks missed: $what"
done

# the summary's screenshot, kept
mkdir -p "$shots"
rm -f "$shots/report-summary.png"
timeout 120 "$chromium" "${flags[@]}" --hide-scrollbars --screenshot="$shots/report-summary.png" \
  --window-size=1400,1000 "file://$rep/index.html" >"$d/shot.log" 2>&1
if [ -s "$shots/report-summary.png" ] && [ "$(head -c 4 "$shots/report-summary.png" | tail -c 3)" = PNG ]; then
  ok; echo "screenshot: $shots/report-summary.png"
else bad "no screenshot in $shots/report-summary.png"; fi

cd - >/dev/null || exit 1
echo "report in a browser: $pass passed, $fail failed"
[ "$fail" = 0 ]
