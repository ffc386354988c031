/* shared.c: the shared library's own translation unit, empty on purpose.
 * libmcbench.so is linked from the whole static library (every object
 * compiled once, position independent; see cmake/install.cmake); CMake
 * wants a source for a library target, and this is it. Allocates nothing,
 * cannot fail. */
typedef int mcb_shared_translation_unit_is_not_empty;
