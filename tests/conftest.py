"""Suite-wide options: ``--no-skips`` makes a run with any skipped test fail (CI installs every extra and every
Debian package the tests use, so a skip there means something is missing, not optional)."""
import pytest


def pytest_addoption(parser):
    parser.addoption("--no-skips", action="store_true",
                     help="fail the run when any test was skipped (the README's test command and CI use it)")


def _skipped(config) -> int:
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    return len(reporter.stats.get("skipped", [])) if reporter is not None else 0


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if config.getoption("--no-skips") and _skipped(config):
        terminalreporter.write_line(f"--no-skips: {_skipped(config)} test(s) skipped; every test must run here",
                                    red=True)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    if session.config.getoption("--no-skips") and _skipped(session.config) and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
