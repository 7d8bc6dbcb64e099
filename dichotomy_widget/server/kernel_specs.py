"""Voila's kernel specs, with ipykernel started through :mod:`.kernel_launcher` (no 1 s parent poll).

``dichotomy serve`` runs voila with ``--VoilaConfiguration.kernel_spec_manager_class`` set to
:class:`QuietKernelSpecManager`. A spec that starts ``-m ipykernel_launcher`` (the usual ``python3``) is
given ``-m dichotomy_widget.server.kernel_launcher`` instead, with the same interpreter and arguments; any
other spec is left as it is.
"""

from __future__ import annotations

from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

__all__ = ["QuietKernelSpecManager", "LAUNCHER", "quiet_argv"]

LAUNCHER = "dichotomy_widget.server.kernel_launcher"


def quiet_argv(argv: list[str]) -> list[str]:
    """``argv`` with ``-m ipykernel_launcher`` replaced by ``-m`` :data:`LAUNCHER`; else unchanged."""
    for i in range(len(argv) - 1):
        if argv[i] == "-m" and argv[i + 1] == "ipykernel_launcher":
            return [*argv[:i + 1], LAUNCHER, *argv[i + 2:]]
    return list(argv)


class QuietKernelSpecManager(KernelSpecManager):
    """Kernel specs whose ipykernel starts through :mod:`.kernel_launcher`."""

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        spec = super().get_kernel_spec(kernel_name)
        spec.argv = quiet_argv(spec.argv)
        return spec
