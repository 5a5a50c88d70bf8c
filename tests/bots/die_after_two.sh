#!/bin/sh
# Answers two lines, then exits.
read -r a; echo "one $a"
read -r b; echo "two $b"
exit 0
