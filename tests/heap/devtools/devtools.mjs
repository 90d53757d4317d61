// devtools.mjs -- load a .heapsnapshot as Chrome DevTools' Memory panel
// does, with DevTools' own code, in node.
//
// The Memory panel hands a snapshot file to a worker running
// heap_snapshot_worker (HeapSnapshotWorkerDispatcher): it creates a
// HeapSnapshotLoader, writes the file to it in chunks, closes it, and asks
// it to build the JSHeapSnapshot (which computes retainers, dominators and
// retained sizes in a second worker, SecondaryInitManager, over a
// MessageChannel); then it calls the snapshot's methods by name
// (HeapSnapshotProxy).  Here both "workers" are dispatchers in this
// thread, spoken to with the same messages (disposition, objectId,
// methodName, methodArguments), results structured-cloned as a worker's
// postMessage would.  What the worker would print as a problem report
// (console.warn: nodes unreachable from the root) and the events it sends
// (BrokenSnapshot) are collected.
import {register} from 'node:module';
import {MessageChannel} from 'node:worker_threads';

register('./ts_hooks.mjs', import.meta.url);
// DevTools runs in a current Chrome; Debian's node 20 lacks this ES2024
// function, which the loader and the second worker use.
Promise.withResolvers ??= function () {
  let resolve, reject;
  const promise = new this((yes, no) => { resolve = yes; reject = no; });
  return {promise, resolve, reject};
};
const WORKER = new URL('./node_modules/chrome-devtools-frontend/front_end/entrypoints/heap_snapshot_worker/',
                       import.meta.url);
const {HeapSnapshotWorkerDispatcher} = await import(new URL('HeapSnapshotWorkerDispatcher.ts', WORKER).href);

// One worker: a dispatcher and the answers it posted, by call id.
class Worker {
  constructor(events) {
    this.answers = new Map();
    this.dispatcher = new HeapSnapshotWorkerDispatcher(message => {
      if (message?.eventName) events.push({name: message.eventName, data: message.data});
      else if (message?.callId !== undefined) this.answers.set(message.callId, structuredClone(message));
    });
    this.callId = 1;
  }
  async send(data, ports = []) {
    const callId = this.callId++;
    await this.dispatcher.dispatchMessage({data: {callId, ...data}, ports});
    const answer = this.answers.get(callId);
    this.answers.delete(callId);
    if (answer?.error) throw new Error(`${data.methodName ?? data.disposition}: ${answer.error}`);
    return answer?.result;
  }
}

// load(text, {chunk}) -> {call(method, ...args), problems, events, close()}
// Throws what DevTools throws when it rejects the file.
export async function load(text, {chunk = 10000000} = {}) {
  const events = [], problems = [];
  const primary = new Worker(events), secondary = new Worker(events);
  const warn = console.warn;
  console.warn = (...args) => problems.push(args.join(' '));
  const channel = new MessageChannel();
  try {
    const LOADER = 1, SECOND = 2, SNAPSHOT = 3;
    await primary.send({disposition: 'createLoader', objectId: LOADER});
    for (let i = 0; i < text.length; i += chunk)
      await primary.send({disposition: 'method', objectId: LOADER, methodName: 'write',
                          methodArguments: [text.slice(i, i + chunk)]});
    await primary.send({disposition: 'method', objectId: LOADER, methodName: 'close', methodArguments: []});
    await secondary.send({disposition: 'setupForSecondaryInit', objectId: SECOND}, [channel.port2]);
    const built = await primary.send({disposition: 'factory', objectId: LOADER, methodName: 'buildSnapshot',
                                      methodArguments: [], newObjectId: SNAPSHOT}, [channel.port1]);
    if (!built) throw new Error('buildSnapshot made no snapshot');
    return {
      problems,
      events,
      call: (methodName, ...methodArguments) =>
        primary.send({disposition: 'method', objectId: SNAPSHOT, methodName, methodArguments}),
      // a provider (edges of a node, nodes of a class...) and its items
      items: async (factory, args, begin = 0, end = 1e9) => {
        const id = 1000 + primary.callId;
        await primary.send({disposition: 'factory', objectId: SNAPSHOT, methodName: factory,
                            methodArguments: args, newObjectId: id});
        return primary.send({disposition: 'method', objectId: id, methodName: 'serializeItemsRange',
                             methodArguments: [begin, end]});
      },
      close() { channel.port1.close(); channel.port2.close(); console.warn = warn; },
    };
  } catch (e) {
    channel.port1.close();
    channel.port2.close();
    console.warn = warn;
    throw e;
  }
}
