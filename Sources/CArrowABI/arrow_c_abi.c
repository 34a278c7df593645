// The Arrow C interfaces are header-only structs; this file gives the target something to compile.
#include "arrow_c_abi.h"
