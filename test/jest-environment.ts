import vm from 'node:vm';
import { TestEnvironment } from 'jest-environment-node';

/**
 * jest's node environment, with each test file's global object an ordinary one.
 *
 * jest-environment-node makes each test file's realm with `vm.createContext()`, whose global object node wraps in
 * property interceptors: every read of a global (`Math`, `Uint8Array`) by the file's code, and by the app code it
 * imports, goes through them and is never cached by V8. Loops over pixels that call `Math.min` ran about 50 times
 * slower than under node itself, and the MRZ reader's unit file took 188 s instead of 23 (docs/benchmarks.md, "The
 * test suite's time"). `vm.constants.DONT_CONTEXTIFY` (node 22.8) makes the same new realm without the wrapper, so
 * each file still has a realm of its own.
 */
export default class OrdinaryGlobalEnvironment extends TestEnvironment {
  constructor(...args: ConstructorParameters<typeof TestEnvironment>) {
    const createContext = vm.createContext;
    vm.createContext = ((contextObject?: vm.Context, options?: vm.CreateContextOptions) => createContext(contextObject ?? vm.constants.DONT_CONTEXTIFY, options)) as typeof vm.createContext;
    try {
      super(...args);
    } finally {
      vm.createContext = createContext;
    }
  }
}
