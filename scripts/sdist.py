"""A package's source release from PyPI, downloaded and unpacked into
target/ once: the held-out checks (eval-newspaper.py, eval-trafilatura.py)
read the test pages other extractors ship in theirs."""
import os, subprocess, sys, tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def unpacked(package, version):
    """The directory `package-version` of the source release, fetched with
    pip (the registry this machine may reach) the first time."""
    where = os.path.join(ROOT, "target", package)
    top = os.path.join(where, f"{package}-{version}")
    if os.path.isdir(top):
        return top
    os.makedirs(where, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
                    "-d", where, f"{package}=={version}"], check=True, stdout=subprocess.DEVNULL)
    with tarfile.open(os.path.join(where, f"{package}-{version}.tar.gz")) as t:
        t.extractall(where, filter="data")
    return top
