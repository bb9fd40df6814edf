"""The attacks benchmarks/class_answers.py makes on the teacher's follow channel, each run in a
process of its own (so that the attacker's work is not the measuring process's): ``flood``, N
connections flooding valid answers, each connecting again with a fresh id when dropped; and
``storm``, one client reconnecting with a fresh id each time. Both go to the Unix-domain socket
the teacher's app made: nothing leaves the machine."""

from __future__ import annotations

import asyncio
import signal

from attn_tui.core.classroom import wire

UNSCALED = (0.212, 0.212, 0.576)  # softmax([1, 1, 2]): a valid answer, √d_k forgotten


def flood(channel: str, connections: int, seconds: float) -> None:
    """N connections flooding valid answers, each connecting again (a fresh id) when dropped,
    for ``seconds`` at most; runs in a process of its own (``--flood``) and prints its counts."""
    sent = joined = 0
    line = wire.answer_line(4, 2, UNSCALED)

    async def one(n: int) -> None:
        nonlocal sent, joined
        loop = asyncio.get_running_loop()
        for again in range(1 << 30):
            if loop.time() > end:
                return
            try:
                reader, writer = await asyncio.open_unix_connection(channel)
                writer.write(wire.hello_line(f"{n:04x}{again:08x}"))
                joined += 1
                while loop.time() < end:
                    writer.write(line * 20)
                    await writer.drain()
                    sent += 20
                    await asyncio.sleep(0.002)  # (a flood, not a spin of this process's core)
            except (ConnectionError, OSError):
                await asyncio.sleep(0.002)
            finally:
                try:
                    writer.close()
                except (UnboundLocalError, OSError):
                    pass

    async def main() -> None:
        nonlocal end
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds

        def stop() -> None:  # (SIGTERM from the benchmark: stop, and say what was sent)
            nonlocal end
            end = 0.0

        loop.add_signal_handler(signal.SIGTERM, stop)
        await asyncio.gather(*(one(n) for n in range(connections)))

    end = 0.0
    asyncio.run(main())
    print(f"flood: {sent} answers sent over {joined} connections", flush=True)


def storm(channel: str, seconds: float) -> None:
    """One client reconnecting with a fresh id each time: hello, an answer, the beat, gone."""

    async def main() -> int:
        loop = asyncio.get_running_loop()
        end, done = loop.time() + seconds, 0
        while loop.time() < end:
            try:
                reader, writer = await asyncio.open_unix_connection(channel)
                writer.write(wire.hello_line(f"{done + 1:012x}") + wire.answer_line(4, 2, UNSCALED))
                await asyncio.wait_for(reader.readline(), 5)
                writer.close()
                done += 1
            except (ConnectionError, OSError, asyncio.TimeoutError):
                await asyncio.sleep(0.01)
        return done

    print(f"storm: {asyncio.run(main())} reconnects with fresh ids", flush=True)
