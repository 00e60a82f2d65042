"""Hostile and honest clients at once (see ./run): silent sockets, trickling
heads and honest keep-alive clients; reports what the honest ones saw."""

import asyncio
import json
import sys
import time

HOST, PORT = sys.argv[1], int(sys.argv[2])
SILENT, TRICKLE, SECONDS, HONEST = (int(a) for a in sys.argv[3:7])

closed = {"silent": 0, "trickle": 0}
held = []
latencies = []
errors = {}


async def silent():
    try:
        reader, writer = await asyncio.open_connection(HOST, PORT)
    except OSError as err:
        errors[f"silent connect: {err.__class__.__name__}"] = errors.get(f"silent connect: {err.__class__.__name__}", 0) + 1
        return
    connected = time.monotonic()
    try:
        await asyncio.wait_for(reader.read(1), timeout=SECONDS + 5)
        closed["silent"] += 1
    except asyncio.TimeoutError:
        pass
    except OSError:
        # A reset is a close too.
        closed["silent"] += 1
    held.append(time.monotonic() - connected)
    writer.close()


async def trickle():
    try:
        reader, writer = await asyncio.open_connection(HOST, PORT)
    except OSError:
        return
    head = b"POST /usage HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000
    for byte in head:
        try:
            writer.write(bytes([byte]))
            await writer.drain()
            data = await asyncio.wait_for(reader.read(1), timeout=2)
            if data == b"" or data:
                closed["trickle"] += 1
                break
        except asyncio.TimeoutError:
            continue
        except OSError:
            closed["trickle"] += 1
            break
    writer.close()


async def request(reader, writer, path, body):
    payload = json.dumps(body).encode()
    writer.write(
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload
    )
    await writer.drain()
    status_line = await reader.readline()
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    await reader.readexactly(length)
    return int(status_line.split()[1]) if status_line else 0


async def honest(n, deadline):
    reader = writer = None
    turn = 0
    while time.monotonic() < deadline:
        started = time.monotonic()
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection(HOST, PORT)
            turn += 1
            used = (turn * 997) % 150_000
            status = await request(reader, writer, "/usage", {"conversation_id": f"honest-{n}", "used": used, "size": 200_000})
            if status == 200:
                status = await request(reader, writer, "/decide", {"conversation_id": f"honest-{n}"})
            if status != 200:
                errors[f"status {status}"] = errors.get(f"status {status}", 0) + 1
            else:
                latencies.append(time.monotonic() - started)
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError) as err:
            errors[err.__class__.__name__] = errors.get(err.__class__.__name__, 0) + 1
            if writer is not None:
                writer.close()
            reader = writer = None


async def main():
    deadline = time.monotonic() + SECONDS
    hostile = [asyncio.create_task(silent()) for _ in range(SILENT)]
    hostile += [asyncio.create_task(trickle()) for _ in range(TRICKLE)]
    await asyncio.sleep(1)
    await asyncio.gather(*(honest(n, deadline) for n in range(HONEST)))
    for task in hostile:
        task.cancel()
    latencies.sort()
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else float("nan")
    print(f"honest pairs (/usage + /decide): {len(latencies)} in {SECONDS} s, errors: {sum(errors.values())} {errors}")
    print(f"pair latency ms: p50 {pick(0.5):.1f}  p99 {pick(0.99):.1f}  max {pick(1.0):.1f}")
    print(f"hostile sockets closed by the service: silent {closed['silent']}/{SILENT}, trickling {closed['trickle']}/{TRICKLE}")
    if held:
        held.sort()
        print(f"a silent socket was held: median {held[len(held) // 2]:.1f} s, longest {held[-1]:.1f} s")


asyncio.run(main())
