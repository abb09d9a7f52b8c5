// Run firmware/tests/fw_checks.py under MicroPython's WebAssembly port.
// The firmware modules (all of firmware/*.py except the Pico-only hw.py and
// main.py) and the test modules are copied into the port's in-memory
// filesystem unchanged; exit code = number of failed checks (2 on a crash).
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const here = dirname(fileURLToPath(import.meta.url));
const firmware = dirname(here);
const pico_only = new Set(["hw.py", "main.py"]);

const mp = await loadMicroPython({
  heapsize: 8 * 1024 * 1024,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});
mp.FS.mkdir("/fw");
const copy = (dir, name) => mp.FS.writeFile("/fw/" + name, readFileSync(join(dir, name)));
for (const name of readdirSync(firmware)) {
  if (name.endsWith(".py") && !pico_only.has(name)) copy(firmware, name);
}
for (const name of ["fw_checks.py", "sim_mfrc522.py"]) copy(here, name);
copy(firmware, "protocol_vectors.json");

try {
  mp.runPython(`
import sys
sys.path.insert(0, "/fw")
print("micropython", sys.implementation.version, sys.implementation._machine)
import fw_checks
_failed = fw_checks.run_all("/fw/protocol_vectors.json")
`);
  process.exitCode = Math.min(mp.globals.get("_failed"), 100);
} catch (e) {
  process.stderr.write(String(e) + "\n");
  process.exitCode = 2;
}
