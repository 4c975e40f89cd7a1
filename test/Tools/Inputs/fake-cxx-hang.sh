#!/bin/sh
# A stand-in for g++ that never finishes (autofuse-run-kernel.test): it and its child
# must be killed when the build times out.
sleep 317 &
sleep 317
