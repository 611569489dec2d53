// SPDX-License-Identifier: MIT OR Apache-2.0
// ONNX Runtime for Node.js (CPU execution provider) on an .onnx file, for bench/compare_onnx.py
// when the python onnxruntime package is not importable.
//
//   node bench/ort_onnx.js time <model.onnx> <threads> <repeats> <min_time_s> <item_shape> <batch>...
//       prints {"<batch>": seconds, ...}: per batch, the median over `repeats` samples of the
//       mean time of one session.run (inputs uniform in [-1, 1); item_shape e.g. 3,224,224)
//   node bench/ort_onnx.js run <model.onnx> <threads> <input.f32> <shape> <output.f32>
//       runs the model once on raw float32 data of `shape` and writes the first output raw
//
// onnxruntime-node must be resolvable: NODE_PATH=<dir>/node_modules, where <dir> holds
// `ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node`.
"use strict";
const fs = require("fs");
const ort = require("onnxruntime-node");

function median(xs) {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function session(model, threads) {
    return ort.InferenceSession.create(model, {
        executionProviders: ["cpu"],
        intraOpNumThreads: Number(threads),
        interOpNumThreads: 1,
        graphOptimizationLevel: "all",
    });
}

async function time(model, threads, repeats, minTime, itemShape, ...batches) {
    const s = await session(model, threads);
    const item = itemShape.split(",").map(Number);
    const result = {};
    for (const b of batches.map(Number)) {
        const dims = [b, ...item];
        const data = new Float32Array(dims.reduce((x, y) => x * y, 1));
        for (let i = 0; i < data.length; ++i) data[i] = Math.random() * 2 - 1;
        const feeds = { [s.inputNames[0]]: new ort.Tensor("float32", data, dims) };
        for (let i = 0; i < 5; ++i) await s.run(feeds);  // warm-up
        let t0 = process.hrtime.bigint();
        await s.run(feeds);
        const once = Math.max(Number(process.hrtime.bigint() - t0) * 1e-9, 1e-7);
        const iters = Math.max(1, Math.floor(Number(minTime) / once));
        const samples = [];
        for (let r = 0; r < Number(repeats); ++r) {
            t0 = process.hrtime.bigint();
            for (let i = 0; i < iters; ++i) await s.run(feeds);
            samples.push(Number(process.hrtime.bigint() - t0) * 1e-9 / iters);
        }
        result[String(b)] = median(samples);
    }
    console.log(JSON.stringify(result));
}

async function run(model, threads, input, shape, output) {
    const s = await session(model, threads);
    const buf = fs.readFileSync(input);
    const data = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    const dims = shape.split(",").map(Number);
    const out = await s.run({ [s.inputNames[0]]: new ort.Tensor("float32", data, dims) });
    const y = out[s.outputNames[0]];
    fs.writeFileSync(output, Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength));
    console.log(JSON.stringify({ dims: y.dims }));
}

const [mode, ...args] = process.argv.slice(2);
(mode === "time" ? time(...args) : mode === "run" ? run(...args) : Promise.reject(
    new Error("usage: ort_onnx.js time|run ..."))).catch((e) => {
    console.error(`ort_onnx.js: ${e.message || e}`);
    process.exit(1);
});
