#!/bin/sh
# A stand-in for g++ that becomes a long sleep (autofuse-run-kernel.test): when
# autofuse-run is killed with SIGKILL, which no handler sees, the kernel must still
# end it (PR_SET_PDEATHSIG).
exec sleep 319
