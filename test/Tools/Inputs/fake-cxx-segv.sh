#!/bin/sh
# A stand-in for g++ whose "driver" kills itself with SIGSEGV (autofuse-run-kernel.test).
out=
prev=
for a in "$@"; do
  if [ "$prev" = "-o" ]; then out=$a; fi
  prev=$a
done
printf '#!/bin/sh\nkill -SEGV $$\n' > "$out"
chmod +x "$out"
