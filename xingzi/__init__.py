"""xingzi: read, group and score photos of revealed Xingzi (星子) mahjong hands."""

import os as _os
import sys as _sys

__version__ = "0.1.0"

# Nothing leaves the machine at run time. ONNX Runtime (1.29 on) reports usage to Microsoft and keeps a device id
# under ~/.cache unless this is set before it starts; OpenVINO's model converter, which `import openvino` loads,
# sends an import event to Google Analytics and counts runs in ~/intel unless its telemetry package cannot be
# imported, when it takes its own stub. (Set here: every command, notebook and tool imports xingzi first.)
_os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
if "openvino_telemetry" not in _sys.modules:
    _sys.modules["openvino_telemetry"] = None  # type: ignore[assignment]
