import shutil

import pytest

from accelgen.cosim.simulators import available_simulators


def pytest_report_header(config):
    return f"accelgen simulators available: {', '.join(available_simulators()) or 'none'}"


@pytest.fixture(scope="session")
def has_icarus():
    return shutil.which("iverilog") is not None
