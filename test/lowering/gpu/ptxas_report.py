"""Assembles each gpu.module of `kiln-compile --emit=ptx` output with
ptxas -arch=sm_90 -v, prints its register and spill report and a summary;
fails if ptxas does. With --check-artifact, prints an artifact's manifest
device line instead.

usage: ptxas_report.py PTXAS FILE.ptx | ptxas_report.py --check-artifact A.so"""
import re
import subprocess
import sys
import tempfile

if sys.argv[1] == "--check-artifact":
    data = open(sys.argv[2], "rb").read()
    found = re.search(rb"device cuda (sm_[0-9]+a?)", data)
    print("manifest:", found.group(0).decode() if found else "no device line")
    sys.exit(0)

ptxas, path = sys.argv[1], sys.argv[2]
modules = re.split(r"^// kiln-compile: gpu.module @(\S+) for \S+\n",
                   open(path).read(), flags=re.M)[1:]
stores = loads = 0
for name, ptx in zip(modules[0::2], modules[1::2]):
    with tempfile.NamedTemporaryFile("w", suffix=".ptx") as f:
        f.write(ptx)
        f.flush()
        done = subprocess.run([ptxas, "-arch=sm_90", "-v", f.name, "-o",
                               "/dev/null"], capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"ptxas failed on {name}:\n{done.stderr}")
    used = re.search(r"Used (\d+) registers", done.stderr)
    spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads",
                      done.stderr)
    stores += int(spill.group(1)) if spill else 0
    loads += int(spill.group(2)) if spill else 0
    print(f"{name}: {used.group(1) if used else '?'} registers")
print(f"{len(modules) // 2} kernels assembled for sm_90, {stores} spill "
      f"stores, {loads} spill loads")
