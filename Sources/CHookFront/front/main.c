// hookctl-front: see Sources/CHookFront/include/hookfront.h. `hookctl setup` writes this program (carried
// inside hookctl) beside the hook script, whose `#!` line names it.
#include "hookfront.h"

int main(int argc, char **argv) { return hk_front_main(argc, argv); }
