#ifndef HOOKCTL_CYAML_SHIM_H
#define HOOKCTL_CYAML_SHIM_H
#include <yaml.h>
#endif
