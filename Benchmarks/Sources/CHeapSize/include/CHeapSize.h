#ifndef CHEAPSIZE_H
#define CHEAPSIZE_H
#include <stddef.h>

/// Bytes the C heap holds in allocated blocks (mapped ones included), or 0
/// where the C library does not say (glibc's mallinfo2 does).
size_t cheapsize_heap_bytes(void);

#endif
