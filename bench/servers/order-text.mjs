// The answer every benchmark server gives for the `order` tool (no schema library, so the
// hand-written servers can share it without loading one). Used only by the benchmark.

/** `<customer name>: <n> items by <shipping method>`. */
export function orderText(order) {
  return `${order.customer.name}: ${order.items.length} items by ${order.shipping.method}`;
}
