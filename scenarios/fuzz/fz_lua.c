/* scenarios/fuzz/fz_lua.c — target `lua`: the input is the text of a
 * scenario, loaded and run as `hcpsim run` would (text chunks only, the
 * sandbox, strict globals, TAP status), under the fuzzing limits of fuzz.h.
 * Seeds: the conformance suite, the examples and the sandbox test. */
#include "scenarios/fuzz/fuzz.h"

int hcpfz_lua(const uint8_t *data, size_t size) {
    lua_State *L = hcpfz_lua_open();
    if (!L) return 0;
    if (luaL_loadbufferx(L, (const char *)data, size, "=fuzz.lua", "t") == LUA_OK) hcpfz_lua_main(L);
    lua_close(L);
    return 0;
}

HCPFZ_ENTRY(hcpfz_lua)
