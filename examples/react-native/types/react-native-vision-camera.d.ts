/**
 * The slice of react-native-vision-camera 4.x's types that ChipScreen.tsx uses (its QR code scanner),
 * copied from the package's lib/typescript/ declarations. Declared here rather than installed
 * because the package's peer dependency is react-native itself (see react-native.d.ts). 4.x, not 5.x:
 * 5.x's object scanner is iOS only.
 */
declare module 'react-native-vision-camera' {
  import type { Component } from 'react';
  import type { ViewProps } from 'react-native';

  export type CodeType = 'code-128' | 'code-39' | 'code-93' | 'codabar' | 'ean-13' | 'ean-8' | 'itf' | 'upc-e' | 'upc-a' | 'qr' | 'pdf-417' | 'aztec' | 'data-matrix';
  export interface Code {
    type: CodeType | 'unknown';
    /** The decoded text, or undefined when it cannot be decoded. */
    value?: string;
  }
  export interface CodeScannerFrame {
    width: number;
    height: number;
  }
  export interface CodeScanner {
    codeTypes: CodeType[];
    onCodeScanned: (codes: Code[], frame: CodeScannerFrame) => void;
  }
  export type CameraPosition = 'front' | 'back' | 'external';
  export interface CameraDevice {
    id: string;
    position: CameraPosition;
  }
  export interface CameraProps extends ViewProps {
    device: CameraDevice;
    isActive: boolean;
    codeScanner?: CodeScanner;
  }

  export function useCameraDevice(position: CameraPosition): CameraDevice | undefined;
  export function useCameraPermission(): { hasPermission: boolean; requestPermission: () => Promise<boolean> };
  export function useCodeScanner(codeScanner: CodeScanner): CodeScanner;
  export class Camera extends Component<CameraProps> {}
}
