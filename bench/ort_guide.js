// SPDX-License-Identifier: MIT OR Apache-2.0
// Times the MNIST guide model exported to ONNX (by bench/compare_guide.py) in ONNX Runtime for
// Node.js, on the CPU execution provider. Prints one JSON object {"<batch>": seconds, ...}: for
// each batch size the median over `repeats` samples of the mean time of one session.run.
//
//   node bench/ort_guide.js <model.onnx> <threads> <repeats> <min_time_s> <batch>...
//
// onnxruntime-node must be resolvable from here: NODE_PATH=<dir>/node_modules, where <dir> holds
// `ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node` (docs/performance.md).
"use strict";
const ort = require("onnxruntime-node");

function median(xs) {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function main() {
    const [model, threads, repeats, minTime, ...batches] = process.argv.slice(2);
    const session = await ort.InferenceSession.create(model, {
        executionProviders: ["cpu"],
        intraOpNumThreads: Number(threads),
        interOpNumThreads: 1,
        graphOptimizationLevel: "all",
    });
    const input = session.inputNames[0];
    const result = {};
    for (const b of batches.map(Number)) {
        const data = new Float32Array(b * 28 * 28);
        for (let i = 0; i < data.length; ++i) data[i] = (Math.random() - 0.1307) / 0.3081;
        const feeds = { [input]: new ort.Tensor("float32", data, [b, 28, 28]) };
        for (let i = 0; i < 20; ++i) await session.run(feeds);  // warm-up
        let t0 = process.hrtime.bigint();
        await session.run(feeds);
        const once = Math.max(Number(process.hrtime.bigint() - t0) * 1e-9, 1e-7);
        const iters = Math.max(1, Math.floor(Number(minTime) / once));
        const samples = [];
        for (let r = 0; r < Number(repeats); ++r) {
            t0 = process.hrtime.bigint();
            for (let i = 0; i < iters; ++i) await session.run(feeds);
            samples.push(Number(process.hrtime.bigint() - t0) * 1e-9 / iters);
        }
        result[String(b)] = median(samples);
    }
    console.log(JSON.stringify(result));
}

main().catch((e) => {
    console.error(`ort_guide.js: ${e.message || e}`);
    process.exit(1);
});
