/* eva_image.h as firmware includes it: strict C99, its layout checks compiled. */
#include "eva_image.h"

unsigned eva_image_op_bytes(void) { return (unsigned)sizeof(eva_image_op_t); }
