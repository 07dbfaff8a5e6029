-- hcpsim.kernels: built-in guest kernels, hand-assembled x86-64 (Windows x64
-- calling convention).  `m:load "kernels"` places each at a fresh address and
-- returns a table of entry points.  Every kernel's instruction and branch
-- counts follow from its listing; the formulas are in scenarios/README.md.
return function(m)
  local k = {}

  -- spin(n): count rcx down to zero; returns n.
  --   0: 48 89 c8     mov  rax, rcx
  --   3: 48 85 c9     test rcx, rcx
  --   6: 74 05        jz   0xd
  --   8: 48 ff c9     dec  rcx          <- loop
  --   b: 75 fb        jnz  8
  --   d: c3           ret
  -- instructions = 4 + 2n, branches = 2 + n (jz, n x jnz, ret)
  k.spin = m:code("\x48\x89\xc8\x48\x85\xc9\x74\x05\x48\xff\xc9\x75\xfb\xc3")

  -- memwalk(buf, n): sum of n 64-bit words at buf; returns the sum.
  --   0: 31 c0        xor  eax, eax
  --   2: 48 85 d2     test rdx, rdx
  --   5: 74 0c        jz   0x13
  --   7: 48 03 01     add  rax, [rcx]   <- loop
  --   a: 48 83 c1 08  add  rcx, 8
  --   e: 48 ff ca     dec  rdx
  --  11: 75 f4        jnz  7
  --  13: c3           ret
  -- instructions = 4 + 4n, branches = 2 + n
  k.memwalk = m:code("\x31\xc0\x48\x85\xd2\x74\x0c\x48\x03\x01\x48\x83\xc1\x08\x48\xff\xca\x75\xf4\xc3")

  -- calls(n): n calls of a leaf that returns at once; returns n.
  --   0: 48 89 c8        mov  rax, rcx
  --   3: 48 85 c9        test rcx, rcx
  --   6: 74 0a           jz   0x12
  --   8: e8 06 00 00 00  call 0x13       <- loop
  --   d: 48 ff c9        dec  rcx
  --  10: 75 f6           jnz  8
  --  12: c3              ret
  --  13: c3              ret             (the leaf)
  -- instructions = 4 + 4n, branches = 2 + 3n (jz, n x (call, ret, jnz), ret)
  k.calls = m:code("\x48\x89\xc8\x48\x85\xc9\x74\x0a\xe8\x06\x00\x00\x00\x48\xff\xc9\x75\xf6\xc3\xc3")
  return k
end
