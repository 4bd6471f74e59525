// All of this target is in its header; SwiftPM wants one source file.
#include "CRetimeLinux.h"
