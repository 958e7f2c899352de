/**
 * The slice of `react-native`'s types that ChipScreen.tsx uses, declared here because the package is
 * too heavy to install in a server repository only to typecheck one screen (react-native 0.88 with its
 * dependencies: 221 packages, 188 MB, among them the Hermes compiler, Metro and Babel). Each
 * declaration is a subset of the one react-native ships (types_generated/), so code that checks here
 * checks against the real package too: README.md says how that was verified.
 */
declare module 'react-native' {
  import type { ComponentType, ReactNode } from 'react';

  export type StyleProp<T> = T | ReadonlyArray<StyleProp<T>> | false | null | undefined;
  export interface ViewStyle {
    flex?: number;
    padding?: number;
    gap?: number;
  }
  export interface TextStyle extends ViewStyle {
    fontSize?: number;
    fontWeight?: 'normal' | 'bold' | '100' | '200' | '300' | '400' | '500' | '600' | '700' | '800' | '900';
  }
  export type AccessibilityRole = 'none' | 'button' | 'link' | 'header' | 'text' | 'alert' | 'image' | 'summary';
  export interface AccessibilityProps {
    accessibilityRole?: AccessibilityRole;
    accessibilityLabel?: string;
    /** Android: announce changes of this element's content. */
    accessibilityLiveRegion?: 'none' | 'polite' | 'assertive';
  }
  export interface ViewProps extends AccessibilityProps {
    style?: StyleProp<ViewStyle>;
    children?: ReactNode;
    testID?: string;
  }
  export interface TextProps extends AccessibilityProps {
    style?: StyleProp<TextStyle>;
    children?: ReactNode;
  }
  export interface TextInputProps extends AccessibilityProps {
    value?: string;
    onChangeText?: (text: string) => void;
    placeholder?: string;
    autoCapitalize?: 'none' | 'sentences' | 'words' | 'characters';
    keyboardType?: 'default' | 'number-pad' | 'decimal-pad' | 'numeric' | 'email-address' | 'phone-pad' | 'url';
    maxLength?: number;
    multiline?: boolean;
    style?: StyleProp<TextStyle>;
  }
  export interface ButtonProps {
    title: string;
    onPress?: (event: unknown) => void;
    disabled?: boolean;
    accessibilityLabel?: string;
  }

  export const View: ComponentType<ViewProps>;
  export const Text: ComponentType<TextProps>;
  export const TextInput: ComponentType<TextInputProps>;
  export const Button: ComponentType<ButtonProps>;
  export const StyleSheet: {
    create<T extends Record<string, ViewStyle | TextStyle>>(styles: T): T;
  };
}
