"""`LineWriter`: the one writer of protocol lines, for stdout and for the endpoint's sockets alike."""

from __future__ import annotations

import io
import socket
import threading
import time

from rata.endpoint import Connection
from rata.lines import LineWriter


def test_each_line_is_written_whole_and_flushed_even_when_threads_write_at_once():
    written: list[bytes] = []
    flushes: list[int] = []

    def write_in_two_pieces(data: bytes) -> None:  # another thread's line would land between the pieces without the lock
        written.append(data[:3])
        time.sleep(0.001)
        written.append(data[3:])

    send = LineWriter(write_in_two_pieces, lambda: flushes.append(len(written)))
    lines = [f"line {n:02d}\n".encode() for n in range(20)]
    threads = [threading.Thread(target=send, args=(line,)) for line in lines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out = b"".join(written)
    assert sorted(out.splitlines(keepends=True)) == lines
    assert flushes == list(range(2, 41, 2))  # after each line, never in the middle of one


def test_a_broken_pipe_quietens_the_writer_for_good():
    calls: list[bytes] = []

    def broken(data: bytes) -> None:
        calls.append(data)
        raise BrokenPipeError

    send = LineWriter(broken)
    send(b"first\n")
    send(b"second\n")
    assert calls == [b"first\n"] and send.closed


def test_a_closed_stream_quietens_the_writer():
    stream = io.BytesIO()
    send = LineWriter(stream.write, stream.flush)
    send(b"kept\n")
    value = stream.getvalue()
    stream.close()
    send(b"dropped\n")
    assert value == b"kept\n" and send.closed


def test_after_close_nothing_more_is_written():
    stream = io.BytesIO()
    send = LineWriter(stream.write)
    send.close()
    send(b"late\n")
    assert stream.getvalue() == b""


def test_an_endpoint_connection_sends_through_the_writer_and_goes_quiet_once_closed():
    ours, theirs = socket.socketpair()
    connection = Connection(ours)
    connection.send(b"hello\n")
    assert theirs.recv(64) == b"hello\n"
    connection.close()
    connection.send(b"after close\n")  # no error: nobody is left to tell
    assert connection.send.closed and theirs.recv(64) == b""
    theirs.close()
