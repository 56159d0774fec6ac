// Every file of HookDelivery sees the layer below it (and, through it, every layer under that, Foundation and
// the C library): the one place this target names what it builds on.
@_exported import HookCore
