// libxcrypt, the system's password-hashing library (Debian: libcrypt-dev).
#include <crypt.h>
