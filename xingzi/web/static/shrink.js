// The photo shrunk before it is sent (loaded before app.js, whose state it reads when called).
"use strict";

// A phone photo (12-50 MP, 3-20 MB) shrunk in the browser to the size the server reads anyway: a shorter upload,
// and no photo refused for its size. The turn its EXIF asks for is applied here, as the server would. A photo this
// browser cannot decode (HEIC in most browsers) or one already small goes as it is.
async function shrunk(file) {
  const side = state.maxSide;
  if (!side || !window.createImageBitmap) return file;
  let bitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch (e) {
    return file;
  }
  try {
    const k = side / Math.max(bitmap.width, bitmap.height);
    if (k >= 1) return file;
    const canvas = document.createElement("canvas");
    canvas.width = Math.max(1, Math.round(bitmap.width * k));
    canvas.height = Math.max(1, Math.round(bitmap.height * k));
    const ctx = canvas.getContext("2d");
    ctx.imageSmoothingQuality = "high";
    ctx.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((done) => canvas.toBlob(done, "image/jpeg", 0.92));
    return blob || file;
  } finally {
    bitmap.close();
  }
}
