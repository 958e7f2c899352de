// node-forge's cipher, DES and util modules alone (its index pulls parts backed by node:crypto). Only what des.ts uses is typed.
declare module 'node-forge/lib/cipher' {
  type ByteBuffer = { getBytes(): string };
  type BlockCipher = {
    start(options: { iv: string }): void;
    update(input: ByteBuffer): void;
    finish(pad?: (blockSize: number, buffer: ByteBuffer, decrypt: boolean) => boolean): boolean;
    output: ByteBuffer;
  };
  const cipher: {
    createCipher(algorithm: 'DES-CBC' | '3DES-CBC', key: string): BlockCipher;
    createDecipher(algorithm: 'DES-CBC' | '3DES-CBC', key: string): BlockCipher;
  };
  export = cipher;
}
declare module 'node-forge/lib/des';
declare module 'node-forge/lib/util' {
  const util: { createBuffer(input: string): { getBytes(): string } };
  export = util;
}
