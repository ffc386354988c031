/* python_host.c: --plugin FILE.py, a solver written in Python (docs/python.md,
 * "Python solvers"). The mcbench binary holds no interpreter: given a .py
 * plugin it runs itself again as
 *     PYTHON -c BOOT mcbench ARGS...
 * where BOOT imports the mcbench package's host (python/mcbench/_host.py).
 * The host loads libmcbench.so, installs its script loader
 * (mcb_plugin_set_script_loader, harness/plugin.h) and calls the library's
 * mcb_cli_main with the same arguments: the same command, the same
 * options, the same results file, with the Python solvers registered like
 * plugins (isolated in a child process under --isolate auto).
 * PYTHON: $MCB_PYTHON, else the interpreter CMake found (MCB_PYTHON_EXE).
 * The package: the source tree's python/ with the build tree's libmcbench.so
 * (MCBENCH_LIB, unless set) when this binary runs from its build tree, else
 * the install prefix's package (the binary's ../MCB_PYTHON_INSTALL_DIR),
 * which finds the installed library itself (cmake/python.cmake).
 * A start that fails is an error naming the file; no exit here (the caller
 * returns the status). */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli/cli.h"
#include "harness/plugin.h"

#ifndef MCB_PYTHON_EXE
#define MCB_PYTHON_EXE "/usr/bin/python3"
#endif
#ifndef MCB_BUILD_DIR
#define MCB_BUILD_DIR ""
#endif
#ifndef MCB_BUILD_PYTHONPATH
#define MCB_BUILD_PYTHONPATH ""
#endif
#ifndef MCB_BUILD_LIBRARY
#define MCB_BUILD_LIBRARY ""
#endif
#ifndef MCB_INSTALL_PYTHONDIR
#define MCB_INSTALL_PYTHONDIR "lib/python3/dist-packages"
#endif

/* What the interpreter runs first: a missing package or NumPy/SciPy is a
 * plain error naming the plugin (exit 2), never a traceback. */
static const char boot[] =
    "import sys\n"
    "try:\n"
    "    from mcbench import _host\n"
    "except ImportError as e:\n"
    "    f = ', '.join(a for a in sys.argv if a.endswith('.py'))\n"
    "    sys.stderr.write('mcbench: error: plugin %s: a Python solver needs the mcbench Python '\n"
    "                     'package with NumPy and SciPy (%s; Debian: python3-numpy python3-scipy)\\n'\n"
    "                     % (f, e))\n"
    "    sys.exit(2)\n"
    "sys.exit(_host.main(sys.argv[1:]))\n";

/* The first --plugin FILE.py of argv, or NULL. */
static const char *script_plugin(int argc, char **argv)
{
    for (int k = 1; k + 1 < argc; k++)
        if (!strcmp(argv[k], "--plugin") && mcb_plugin_is_script(argv[k + 1])) return argv[k + 1];
    return NULL;
}

/* The package's folder and the library: the build tree's or the prefix's. */
static void locate(char *pypath, size_t np, char *lib, size_t nl)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    char *dir = dirname(exe), build[4096];
    if (MCB_BUILD_DIR[0] && realpath(MCB_BUILD_DIR, build) && !strcmp(dir, build)) {
        snprintf(pypath, np, "%s", MCB_BUILD_PYTHONPATH);
        snprintf(lib, nl, "%s", MCB_BUILD_LIBRARY);
    } else { /* the installed package finds the installed library itself (its _config.py) */
        snprintf(pypath, np, "%s/../%s", dir, MCB_INSTALL_PYTHONDIR);
        snprintf(lib, nl, "%s", "");
    }
}

int cli_python_host(int argc, char **argv)
{
    const char *file = script_plugin(argc, argv);
    if (!file || mcb_plugin_has_script_loader()) return -1;
    const char *py = getenv("MCB_PYTHON");
    if (!py || !*py) py = MCB_PYTHON_EXE;
    char pypath[4200], lib[4200], joined[8400];
    locate(pypath, sizeof pypath, lib, sizeof lib);
    if (*lib && !getenv("MCBENCH_LIB")) setenv("MCBENCH_LIB", lib, 1);
    const char *old = getenv("PYTHONPATH");
    snprintf(joined, sizeof joined, "%s%s%s", pypath, old && *old ? ":" : "", old ? old : "");
    setenv("PYTHONPATH", joined, 1);
    char **nargv = calloc((size_t)argc + 4, sizeof *nargv);
    if (!nargv) {
        fprintf(stderr, "mcbench: error: out of memory\n");
        return 1;
    }
    nargv[0] = (char *)py;
    nargv[1] = "-c";
    nargv[2] = (char *)boot;
    for (int k = 0; k < argc; k++) nargv[3 + k] = argv[k];
    fflush(NULL);
    execv(py, nargv);
    int e = errno;
    free(nargv);
    fprintf(stderr, "mcbench: error: plugin %s: cannot start the Python interpreter %s (%s); "
            "set MCB_PYTHON to a python3 with NumPy and SciPy\n", file, py, strerror(e));
    return MCB_CLI_EXIT_INPUT;
}
