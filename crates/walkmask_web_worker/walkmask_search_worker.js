// The walkmask search worker: path searches, fills and subgoal index builds off the
// page's main thread. bevy_walkmask starts it as a module worker
// (`WalkmaskPlugin::search_worker`) and sends it walkmask::remote messages as bytes;
// it answers each with the core's reply. `walkmask_worker.js` and
// `walkmask_worker_bg.wasm` are the core's wasm module and its bindings, built by
// web/build.sh next to this file.
import init, { answer, ready } from "./walkmask_worker.js";

const early = [];
let up = false;

function reply(data) {
    const out = answer(new Uint8Array(data));
    if (out !== undefined) {
        self.postMessage(out, [out.buffer]);
    }
}

// Messages that come while the module loads wait for it.
self.onmessage = (event) => (up ? reply(event.data) : early.push(event.data));

await init();
up = true;
const hello = ready();
self.postMessage(hello, [hello.buffer]);
for (const data of early.splice(0)) {
    reply(data);
}
