/* plugin.c: loading solver plugins (see plugin.h). Each step is a static
 * helper: open the file, find the entry, check its version, register the
 * solver. The table of loaded plugins is fixed (MCB_MAX_RUNTIME_SOLVERS,
 * the registry's own limit); each entry owns a copy of the path and the
 * dlopen handle (none for a Python solver, which the Python host's loader
 * registers), released by mcb_plugin_unload_all. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/plugin.h"

typedef struct {
    void *handle;
    char *path;
    const mcb_solver_def *def;
} loaded_plugin;

static loaded_plugin loaded[MCB_MAX_RUNTIME_SOLVERS];
static int nloaded;
static mcb_script_loader script_loader; /* the Python host's (plugin.h) */

void mcb_plugin_set_script_loader(mcb_script_loader loader) { script_loader = loader; }

int mcb_plugin_has_script_loader(void) { return script_loader != NULL; }

int mcb_plugin_is_script(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 3 && !strcmp(path + n - 3, ".py");
}

/* A Python solver: the host's loader registers it; no library handle. */
static mcb_rc load_script(const char *path, const mcb_solver_def **def, mcb_err *err)
{
    if (!script_loader)
        return mcb_fail(err, MCB_E_INPUT, "plugin %s: a Python solver needs the Python host "
                        "(python3 -m mcbench run ...; the mcbench command starts it itself)",
                        path);
    char *copy = mcb_strdup(path);
    if (!copy) return mcb_fail(err, MCB_E_NOMEM, "out of memory loading plugin %s", path);
    const mcb_solver_def *d = NULL;
    mcb_rc rc = script_loader(path, &d, err);
    if (!rc && !d) rc = mcb_fail(err, MCB_E_INPUT, "plugin %s: the Python host registered no "
                                 "solver", path);
    if (rc) {
        free(copy);
        return rc;
    }
    loaded[nloaded++] = (loaded_plugin){NULL, copy, d};
    if (def) *def = d;
    return MCB_OK;
}

static mcb_rc open_library(const char *path, void **handle, mcb_err *err)
{
    /* dlopen searches the library path for a bare name: ./ makes it a file */
    char buf[4200];
    snprintf(buf, sizeof buf, "%s%s", strchr(path, '/') ? "" : "./", path);
    dlerror();
    *handle = dlopen(buf, RTLD_NOW | RTLD_LOCAL);
    if (!*handle) {
        const char *why = dlerror();
        return mcb_fail(err, MCB_E_INPUT, "plugin %s: cannot load it as a shared library: %s",
                        path, why ? why : "unknown reason");
    }
    return MCB_OK;
}

static mcb_rc find_entry(void *handle, const char *path, const mcb_plugin_entry **entry,
                         mcb_err *err)
{
    dlerror();
    *entry = dlsym(handle, MCB_PLUGIN_SYMBOL);
    if (!*entry)
        return mcb_fail(err, MCB_E_INPUT, "plugin %s: exports no symbol '%s' (a plugin declares "
                        "its solver with MCB_PLUGIN_SOLVER(def) from <mcbench/solvers/solver.h>)", path,
                        MCB_PLUGIN_SYMBOL);
    return MCB_OK;
}

static mcb_rc check_version(const mcb_plugin_entry *entry, const char *path, mcb_err *err)
{
    if (entry->interface_version != MCB_SOLVER_INTERFACE_VERSION)
        return mcb_fail(err, MCB_E_INPUT, "plugin %s: built for solver interface version %d, "
                        "this mcbench has version %d: rebuild the plugin against this mcbench's "
                        "headers", path, entry->interface_version, MCB_SOLVER_INTERFACE_VERSION);
    return MCB_OK;
}

mcb_rc mcb_plugin_load(const char *path, const mcb_solver_def **def, mcb_err *err)
{
    if (def) *def = NULL;
    if (!path || !*path) return mcb_fail(err, MCB_E_INPUT, "--plugin needs a file");
    if (nloaded == MCB_MAX_RUNTIME_SOLVERS)
        return mcb_fail(err, MCB_E_INPUT, "plugin %s: at most %d plugins can be loaded", path,
                        MCB_MAX_RUNTIME_SOLVERS);
    if (mcb_plugin_is_script(path)) return load_script(path, def, err);
    void *handle = NULL;
    const mcb_plugin_entry *entry = NULL;
    char origin[4200];
    snprintf(origin, sizeof origin, "plugin %s", path);
    char *copy = mcb_strdup(path);
    mcb_rc rc = copy ? MCB_OK : mcb_fail(err, MCB_E_NOMEM, "out of memory loading %s", origin);
    if (!rc) rc = open_library(path, &handle, err);
    if (!rc) rc = find_entry(handle, path, &entry, err);
    if (!rc) rc = check_version(entry, path, err);
    if (!rc) rc = mcb_registry_add(entry->solver, origin, err);
    if (rc) {
        if (handle) dlclose(handle);
        free(copy);
        return rc;
    }
    loaded[nloaded++] = (loaded_plugin){handle, copy, entry->solver};
    if (def) *def = entry->solver;
    return MCB_OK;
}

const char *mcb_plugin_origin(const mcb_solver_def *def)
{
    for (int k = 0; def && k < nloaded; k++)
        if (loaded[k].def == def) return loaded[k].path;
    return NULL;
}

void mcb_plugin_unload_all(void)
{
    mcb_registry_clear_added();
    for (int k = 0; k < nloaded; k++) {
        if (loaded[k].handle) dlclose(loaded[k].handle);
        free(loaded[k].path);
        loaded[k] = (loaded_plugin){NULL, NULL, NULL};
    }
    nloaded = 0;
}
