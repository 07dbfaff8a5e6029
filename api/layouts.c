/* api/layouts.c — the guest structures' table (api/layouts.h). */
#include "api/layouts.h"

const hcp_lay_row hcp_lay_rows[HCP_L_COUNT] = {
#define HCP_LAY_ROW(S, F, o64, o32, s64, s32, mw) {#S, #F, {o32, o64}, {s32, s64}, mw},
    HCP_LAYOUT_ROWS(HCP_LAY_ROW)
#undef HCP_LAY_ROW
};

void hcp_lay_put(uint8_t *b, hcp_lay f, bool x64, uint64_t v) {
    uint32_t off = hcp_lay_off(f, x64), n = hcp_lay_size(f, x64);
    for (uint32_t i = 0; i < n && i < 8; i++) b[off + i] = (uint8_t)(v >> (8 * i));
}
