"""Start a page's ipykernel that dies with voila, without a thread waking every second to check.

ipykernel watches the process that started it (``$JPY_PARENT_PID``) from a thread that wakes once a
second (``ParentPollerUnix``). Thirty idle seat kernels doing that cost the teacher's laptop about 2 % of
a core, more than the rest of their waiting. On Linux (5.3 and later) a process can be *told* instead:
a ``pidfd`` of the parent (:func:`os.pidfd_open`) becomes readable when the parent process ends, also
when it is killed. :func:`exit_with_parent` starts one thread that sleeps on it and exits the kernel
then, as the poller would a second later. ``PR_SET_PDEATHSIG`` is not used: it fires when the parent's
*thread* that started the kernel ends, and jupyter_server starts kernels from short-lived threads.

Then ``$JPY_PARENT_PID`` is set to 1 before ipykernel reads it: ipykernel starts no poller for parent 1
(init never ends) and, unlike with no parent at all, prints no connection banner into the server's log.
Where a pidfd cannot be had, ipykernel keeps its poller.

    python -m dichotomy_widget.server.kernel_launcher -f CONNECTION_FILE

:mod:`.kernel_specs` makes voila start its kernels through this module.
"""

from __future__ import annotations

import os
import select
import threading

__all__ = ["exit_with_parent", "main"]


def exit_with_parent(parent_pid: int) -> bool:
    """Exit this process when process ``parent_pid`` ends, woken by the OS (no polling); False where
    that cannot be arranged (then nothing changed). Exits at once if the parent is already gone."""
    try:
        fd = os.pidfd_open(parent_pid)
    except (AttributeError, OSError):  # not Linux, an old kernel, or no such process
        return False
    if os.getppid() != parent_pid:  # the parent ended before the pidfd was opened
        os._exit(1)
    threading.Thread(target=_exit_when_ended, args=(fd,), name="dichotomy-parent-watch", daemon=True).start()
    return True


def _exit_when_ended(fd: int) -> None:
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    while not poller.poll():  # no timeout: this thread never wakes until the parent ends
        continue
    os._exit(1)  # what ipykernel's poller does: the server that owned this kernel is gone


def main() -> None:
    parent = os.environ.get("JPY_PARENT_PID", "")
    if parent.isdigit() and int(parent) > 1 and exit_with_parent(int(parent)):
        os.environ["JPY_PARENT_PID"] = "1"  # before ipykernel reads it: no polling thread
    from ipykernel import kernelapp

    kernelapp.launch_new_instance()


if __name__ == "__main__":  # pragma: no cover - runs as the kernel process
    main()
