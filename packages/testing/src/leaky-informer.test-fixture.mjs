// A planted memory bug for memory-stays-bounded.test.ts: an informer whose lister-watcher keeps every list response
// it ever returned (a "debug history" that nobody bounded). Plain JavaScript: memoryStaysBounded imports it in a child.
const history = [];

export function leakyInformer(ctx) {
  const inner = ctx.listerWatcher;
  return ctx.newInformer({
    async list(options, signal) {
      const list = await inner.list(options, signal);
      history.push(list);
      return list;
    },
    watch: (options, signal) => inner.watch(options, signal),
  });
}
