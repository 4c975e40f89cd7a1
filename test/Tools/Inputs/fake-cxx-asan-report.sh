#!/bin/sh
# A stand-in for g++ whose "driver" prints a sanitizer report and exits 0, as a
# sanitizer told to recover does (autofuse-run-sanitize.test): the run must fail.
out=
prev=
for a in "$@"; do
  if [ "$prev" = "-o" ]; then out=$a; fi
  prev=$a
done
printf '#!/bin/sh\necho "driver.cpp:12:5: runtime error: signed integer overflow" >&2\nexit 0\n' > "$out"
chmod +x "$out"
