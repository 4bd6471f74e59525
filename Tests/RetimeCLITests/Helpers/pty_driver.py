"""Runs a command on a new pseudo-terminal, as a user at a keyboard would:
waits for each prompt, then types its answer. Prints everything the
terminal showed and exits with the command's status.

Usage: pty_driver.py 'PROMPT=ANSWER' ... -- COMMAND ARGS...
(with PTY_COLUMNS=N or PTY_ROWS=N in the environment, the terminal is that wide or tall)
(answers may use \\r, \\x03 and \\x7f escapes; {shown:LABEL} in an answer is
the word the terminal showed after LABEL, for text to be typed back)."""
import os
import pty
import re
import sys

split = sys.argv.index("--")
steps = [arg.split("=", 1) for arg in sys.argv[1:split]]
command = sys.argv[split + 1:]

pid, fd = pty.fork()
if pid == 0:
    # PTY_COLUMNS: the terminal's width, as a narrow window has it.
    if os.environ.get("PTY_COLUMNS") or os.environ.get("PTY_ROWS"):
        import fcntl, struct, termios
        rows, columns = int(os.environ.get("PTY_ROWS") or 24), int(os.environ.get("PTY_COLUMNS") or 80)
        fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    os.execv(command[0], command)

shown = b""


def read_more():
    global shown
    try:
        chunk = os.read(fd, 1024)
    except OSError:  # the terminal closed: the command has ended
        chunk = b""
    shown += chunk
    return bool(chunk)


for prompt, answer in steps:
    while prompt.encode() not in shown:
        if not read_more():
            sys.stdout.write(shown.decode(errors="replace"))
            sys.exit("the command ended before asking " + repr(prompt))
    def shown_after(match):
        found = re.search(re.escape(match.group(1)) + r"(\S+)", shown.decode(errors="replace"))
        return found.group(1) if found else ""
    answer = re.sub(r"\{shown:([^}]*)\}", shown_after, answer)
    os.write(fd, answer.encode().decode("unicode_escape").encode("latin-1"))
while read_more():
    pass
_, status = os.waitpid(pid, 0)
sys.stdout.write(shown.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(status))
