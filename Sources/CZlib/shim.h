// zlib (Debian zlib1g-dev): crc32 for stream records, deflate/inflate for .gz files.
#include <zlib.h>
