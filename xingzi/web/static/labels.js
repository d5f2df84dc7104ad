// The page's "save labels" (loaded before app.js, whose state, $, call, fetched, marks, smallText and status it
// uses when called).
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
      status((saved.replaced ? "已更新 Updated in the training set: " : "已存入训练集 Saved to the training set as ")
        + saved.saved + " (" + photoCount(saved.photos) + ")"
        + (saved.truth ? "" : " — 无计分 labels only: no score to keep as its truth"));
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
    status("已保存标注 Labels saved: " + link.download);
  } catch (e) {
    status("出错 Error: " + e.message, true);
  }
}

const photoCount = (n) => n + (n === 1 ? " photo" : " photos");

// The server keeps a training set (xingzi serve --collect): "save labels" adds to it, and says how big it is.
function showCollected(photos) {
  state.collect = photos;
  $("save-labels").replaceChildren("保存到训练集 ", smallText("Save to the training set (" + photoCount(photos) + ")"));
}
