#!/usr/bin/env bash
# Prints a TCP port on 127.0.0.1 that nothing listens on.
set -euo pipefail
if command -v python3 >/dev/null; then
    exec python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
fi
for _ in $(seq 50); do
    port=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; exit 0; }
done
exit 1
