/* mcbench.c: the mcbench binary: its main() is the command line's
 * mcb_cli_main() (main.c), which libmcbench.so exports too, so that the
 * Python host (python3 -m mcbench, docs/python.md) runs the very same
 * commands. Allocates nothing. */
#include "harness/cli/cli.h"

int main(int argc, char **argv) { return mcb_cli_main(argc, argv); }
