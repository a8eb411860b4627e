/* nop.c - an operator that accepts every record; the batch decoder's fuzz target runs it. */
#include "wasmstream.h"

int ws_operator_process(const ws_record *r) {
    (void)r;
    return 0;
}
