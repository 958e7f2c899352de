import { aesCmac } from '../src/aes';
import { fromHex, toHex } from '../src/bytes';

/** RFC 4493 section 4 test vectors: the AES-CMAC the AES secure messaging truncates to 8 bytes. */
const KEY = fromHex('2b7e151628aed2a6abf7158809cf4f3c');
const M64 = '6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710';

it.each([
  [0, 'BB1D6929E95937287FA37D129B756746'],
  [16, '070A16B46B4D4144F79BDD9DD04A287C'],
  [40, 'DFA66747DE9AE63030CA32611497C827'],
  [64, '51F0BEBF7E3B9D92FC49741779363CFE'],
])('AES-CMAC of the first %i bytes matches RFC 4493', (length, mac) => {
  expect(toHex(aesCmac(KEY, fromHex(M64).subarray(0, length)))).toBe(mac);
});
