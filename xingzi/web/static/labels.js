// The page's "save labels" (loaded before app.js, whose state, $, call, fetched, marks and status it uses when called;
// its words in lang.js's phrases, a refusal's in words.js's readFailure).
"use strict";

// The photo and its tiles as corrected, as one YOLO training sample for the detector's next training: kept by
// the server in its dataset folder when it was started with --collect, else handed to the phone as a zip.
async function saveLabels() {
  if (!state.token) return;
  try {
    if (state.collect !== null) {
      const saved = await call("/api/labels", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(Object.assign(marks(), { name: state.name, store: true })) });
      showCollected(saved.photos);
      const n = saved.photos;
      const how = saved.replaced ? T("已更新", "Updated in the training set:")
        : T("已存入训练集", "Saved to the training set as");
      status(cat(how, " " + saved.saved + " ", T(`（共 ${n} 张）`, `(${photoCount(n)})`, `(${photoCount(n)})`),
        saved.truth ? "" : T(" — 无计分，只存标注", " — labels only: no score to keep as its truth",
          " — 无计分 labels only: no score to keep as its truth"),
        saved.backup ? T(`；原标注另存为 ${saved.backup}`, `; the labels it had are kept as ${saved.backup}`,
          `；原标注另存为 the labels it had are kept as ${saved.backup}`) : ""));
      return;
    }
    const response = await fetched("/api/labels", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(Object.assign(marks(), { name: state.name })) });
    const blob = await response.blob();
    const link = document.createElement("a");
    const match = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
    link.download = match ? match[1] : "labels.zip";
    link.href = URL.createObjectURL(blob);
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
    status(cat(T("已保存标注", "Labels saved:"), " " + link.download));
  } catch (e) {
    status(cat(ERROR, " ", readFailure(e, {})), true);
  }
}

const photoCount = (n) => n + (n === 1 ? " photo" : " photos");

// The server keeps a training set (xingzi serve --collect): "save labels" adds to it, and says how big it is.
function showCollected(photos) {
  state.collect = photos;
  $("save-labels").replaceChildren(...bi(`保存到训练集（已有 ${photos} 张）`,
    "Save to the training set (" + photoCount(photos) + ")"));
}
