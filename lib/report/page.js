(function () {
  var V = [[68,1,84],[72,40,120],[62,73,137],[49,104,142],[38,130,142],[31,158,137],
     [53,183,121],[110,206,88],[181,222,43],[253,231,37]];
  var A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", D = {};
  var NONE = 4095, FAILED = 4094, M = 8, tip = document.getElementById("tip"), cache = {};
  for (var a = 0; a < 64; a++) D[A.charCodeAt(a)] = a;
  function colour(x) {
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    var p = x * 9, k = Math.min(8, Math.floor(p)), t = p - k, u = V[k], w = V[k + 1];
    return [u[0] + (w[0] - u[0]) * t, u[1] + (w[1] - u[1]) * t, u[2] + (w[2] - u[2]) * t];
  }
  function code(s, k) { return D[s.charCodeAt(2 * k)] * 64 + D[s.charCodeAt(2 * k + 1)]; }
  function data(id) {
    if (!cache[id]) cache[id] = JSON.parse(document.getElementById(id).textContent);
    return cache[id];
  }
  /*
   * Above AGG nodes a pixel is a block of k x k cells showing its worst:
   * a failed cell, else the slowest, so one bad node's row and column
   * stay a band k cells wide instead of a hairline.
   */
  var AGG = 300;
  function paint(cv) {
    var d = data(cv.dataset.src), r = +cv.dataset.rail, lat = cv.dataset.kind === "lat";
    var s = (lat ? d.l : d.g)[r], n = d.names.length, k = Math.ceil(n / AGG), b = Math.ceil(n / k);
    var worst = new Float64Array(b * b).fill(Infinity), at = new Int32Array(b * b).fill(-1);
    var drawn = 0, failed = 0, ctx;
    var sum = new Float64Array(n), cnt = new Float64Array(n), bad = new Float64Array(n);
    for (var i = 0; i < n; i++) for (var j = 0; j < n; j++) {
      var c = code(s, i * n + j), q = Math.floor(i / k) * b + Math.floor(j / k), x;
      if (i === j || c === NONE) continue;
      if (c === FAILED) { x = -1; failed++; bad[i]++; bad[j]++; }
      else {
        x = lat ? (c ? d.lscale / c : 1) : c / d.gscale; drawn++;
        sum[i] += x; cnt[i]++; sum[j] += x; cnt[j]++;
      }
      if (x < worst[q]) { worst[q] = x; at[q] = i * n + j; }
    }
    cv.width = cv.height = b + M;
    ctx = cv.getContext("2d");
    var img = ctx.createImageData(b, b), px = img.data;
    for (var p = 0; p < b * b; p++) {
      var rgb = at[p] < 0 ? (Math.floor(p / b) === p % b ? [255, 255, 255] : [225, 225, 225])
        : worst[p] < 0 ? [214, 39, 40] : colour(worst[p]);
      px[4 * p] = rgb[0]; px[4 * p + 1] = rgb[1]; px[4 * p + 2] = rgb[2]; px[4 * p + 3] = 255;
    }
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, cv.width, cv.height);
    ctx.putImageData(img, M, M);
    /* The nodes the findings name: ticks on both margins. */
    ctx.fillStyle = "#000";
    d.marks.forEach(function (m) {
      ctx.fillRect(0, M + Math.floor(m / k), M - 2, 1); ctx.fillRect(M + Math.floor(m / k), 0, 1, M - 2);
    });
    var out = [];
    for (var e = 0; e < n; e++) {
      var mean = cnt[e] ? sum[e] / cnt[e] : 0;
      if ((cnt[e] && mean < d.slow) || (!cnt[e] && bad[e]))
        out.push(d.names[e] + (cnt[e] ? " (" + mean.toFixed(2) + " of the median)" : " (every link failed)"));
    }
    cv.dataset.drawn = drawn; cv.dataset.failed = failed; cv.dataset.block = k;
    cv.dataset.standout = out.join(" ");
    var note = document.getElementById(cv.dataset.src.replace(/data$/, "") + cv.dataset.kind + "-" + r);
    note.textContent = (out.length ? "Stand out: " + out.join(", ") : "No row or column stands out.") +
      (k > 1 ? " (a pixel is " + k + " x " + k + " links, showing the worst)" : "");
    cv.onmousemove = function (ev) { hover(cv, d, s, n, r, lat, k, b, at, ev); };
    cv.onmouseleave = function () { tip.style.display = "none"; };
  }
  function hover(cv, d, s, n, r, lat, k, b, at, e) {
    var box = cv.getBoundingClientRect();
    var bj = Math.floor((e.clientX - box.left) * cv.width / box.width) - M;
    var bi = Math.floor((e.clientY - box.top) * cv.height / box.height) - M;
    if (bi < 0 || bj < 0 || bi >= b || bj >= b) { tip.style.display = "none"; return; }
    var cell = at[bi * b + bj] < 0 ? Math.min(bi * k, n - 1) * n + Math.min(bj * k, n - 1) : at[bi * b + bj];
    var i = Math.floor(cell / n), j = cell % n;
    var c = code(s, cell), idx = (r * n + i) * n + j, t = d.names[i] + " \u2192 " + d.names[j];
    if (d.g.length > 1) t += " (rail " + r + ")";
    if (i === j) t += ": itself";
    else if (c === NONE) t += ": not tested";
    else if (c === FAILED) t += ": failed: " + (d.why[idx] || "");
    else if (lat) t += ": latency " + (c / d.lscale * d.median_lat).toFixed(2) + " us";
    else t += ": " + (c / d.gscale * d.median_gbps).toFixed(1) + " Gb/s, " + (c / d.gscale).toFixed(2) + " of the median";
    var z = d.cnt[idx] || [0, 0, 0];
    if (k > 1) t = "worst of " + k + " x " + k + ": " + t;
    t += "\ncounters: retrans " + z[0] + ", seq_err " + z[1] + ", cnp " + z[2];
    tip.textContent = t;
    tip.style.left = (e.clientX + 12) + "px"; tip.style.top = (e.clientY + 12) + "px";
    tip.style.display = "block";
  }
  document.querySelectorAll("canvas.big").forEach(paint);
  document.body.dataset.ready = "1";
})();
