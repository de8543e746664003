#include "binschema/writer.h"

// Everything the writer does is inline in writer.h; this unit keeps the
// library's layout uniform (one .cpp per header that has one).
