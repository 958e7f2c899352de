/**
 * Example app screen for tier T5 (docs/chip.md): scan the hosted page's hand-off QR code, enter the
 * MRZ, read the passport chip over NFC with progress, send it to the service. It cannot run in this
 * repository (no phone, no NFC); the root `npm run typecheck` checks it. See README.md beside it.
 */
import React, { useState } from 'react';
import { Button, StyleSheet, Text, TextInput, View } from 'react-native';
import NfcManager, { NfcTech } from 'react-native-nfc-manager';
import { Camera, useCameraDevice, useCameraPermission, useCodeScanner } from 'react-native-vision-camera';
import { ChipReaderError, Handoff, MrzKey, mrzKeyFromLines, openIsoDep, parseHandoffLink, readPassport, uploadChipFiles } from '@idv/chip-reader';

/** The hand-off link names the session and its secret, not the service: the app is built for one. */
const API_BASE_URL = 'https://verify.example.com';

type Step =
  | { name: 'scan'; problem?: string }
  | { name: 'mrz'; handoff: Handoff; problem?: string }
  | { name: 'reading'; handoff: Handoff; status: string }
  | { name: 'done'; status: string };

/** What each error code asks of the person holding the phone and the passport. */
const ADVICE: Record<ChipReaderError['code'], string> = {
  wrong_mrz_key: 'The chip did not accept these details. Check them against the photo page.',
  tag_lost: 'The phone lost the chip. Hold it still on the passport and try again.',
  secure_messaging: 'The connection to the chip failed a security check. Try again.',
  unsupported_chip: 'This app cannot read this chip.',
  invalid_mrz: 'These details do not match their check digits. Check them against the photo page.',
  upload_failed: 'The chip was read, but sending it failed. Check your connection and try again.',
};

export function ChipScreen(): React.JSX.Element {
  const [step, setStep] = useState<Step>({ name: 'scan' });
  const [mrzLines, setMrzLines] = useState('');
  const [mrz, setMrz] = useState<MrzKey>({ documentNumber: '', dateOfBirth: '', dateOfExpiry: '' });

  const onLink = (link: string) => {
    try {
      setStep({ name: 'mrz', handoff: parseHandoffLink(link) });
    } catch {
      setStep({ name: 'scan', problem: 'This QR code is not a verification hand-off. Scan the one on the verification page.' });
    }
  };

  const readAndSend = async (handoff: Handoff) => {
    const say = (status: string) => setStep({ name: 'reading', handoff, status });
    try {
      // The two MRZ lines (typed, or filled in by a text-recognition camera) win over the three fields.
      const key = mrzLines.trim() ? mrzKeyFromLines(mrzLines.trim().split(/\s*\n\s*/)) : mrz;
      say('Hold the top of your phone on the passport photo page.');
      const transport = await openIsoDep(NfcManager, NfcTech.IsoDep, 'Hold your phone on the passport photo page');
      const files = await readPassport(transport, {
        mrz: key,
        onProgress: ({ file, bytesRead, totalBytes }) => {
          const status = `Reading ${file}: ${Math.round((100 * bytesRead) / totalBytes)}%`;
          say(status);
          void transport.say(status); // iOS shows it in the system NFC sheet
        },
      }).finally(() => transport.close());
      say('Sending what was read…');
      const session = await uploadChipFiles(files, { ...handoff, apiBaseUrl: API_BASE_URL });
      setStep({ name: 'done', status: String(session.status) });
    } catch (e) {
      // Anything else comes from the NFC library: the person closed the iOS sheet, or NFC is off.
      const problem = e instanceof ChipReaderError ? ADVICE[e.code] : 'Reading stopped. Check that NFC is on and try again.';
      setStep({ name: 'mrz', handoff, problem });
    }
  };

  switch (step.name) {
    case 'scan':
      return (
        <View style={styles.screen}>
          <Text accessibilityRole="header" style={styles.heading}>Scan the QR code on the verification page</Text>
          {step.problem ? <Text accessibilityRole="alert">{step.problem}</Text> : null}
          <HandoffScanner onLink={onLink} />
        </View>
      );
    case 'mrz':
      return (
        <View style={styles.screen}>
          <Text accessibilityRole="header" style={styles.heading}>Enter the details from your passport photo page</Text>
          {step.problem ? <Text accessibilityRole="alert">{step.problem}</Text> : null}
          <TextInput accessibilityLabel="Document number" placeholder="Document number" autoCapitalize="characters" value={mrz.documentNumber} onChangeText={(documentNumber) => setMrz({ ...mrz, documentNumber })} />
          <TextInput accessibilityLabel="Date of birth (YYMMDD)" placeholder="Date of birth (YYMMDD)" keyboardType="number-pad" maxLength={6} value={mrz.dateOfBirth} onChangeText={(dateOfBirth) => setMrz({ ...mrz, dateOfBirth })} />
          <TextInput accessibilityLabel="Expiry date (YYMMDD)" placeholder="Expiry date (YYMMDD)" keyboardType="number-pad" maxLength={6} value={mrz.dateOfExpiry} onChangeText={(dateOfExpiry) => setMrz({ ...mrz, dateOfExpiry })} />
          <TextInput accessibilityLabel="Or the two lines at the bottom of the photo page" placeholder="Or the two MRZ lines" autoCapitalize="characters" multiline value={mrzLines} onChangeText={setMrzLines} />
          <Button title="Read the passport chip" onPress={() => void readAndSend(step.handoff)} />
        </View>
      );
    case 'reading':
      return (
        <View style={styles.screen}>
          <Text accessibilityRole="header" style={styles.heading}>Reading your passport chip</Text>
          <Text accessibilityLiveRegion="polite">{step.status}</Text>
        </View>
      );
    case 'done':
      return (
        <View style={styles.screen}>
          <Text accessibilityRole="header" style={styles.heading}>Your passport chip was sent</Text>
          <Text>You can go back to the verification page. Session status: {step.status}</Text>
        </View>
      );
  }
}

function HandoffScanner({ onLink }: { onLink: (link: string) => void }): React.JSX.Element {
  const device = useCameraDevice('back');
  const { hasPermission, requestPermission } = useCameraPermission();
  const codeScanner = useCodeScanner({ codeTypes: ['qr'], onCodeScanned: (codes) => codes[0]?.value && onLink(codes[0].value) });
  if (!hasPermission) return <Button title="Allow the camera to scan the code" onPress={() => void requestPermission()} />;
  if (!device) return <Text>This phone has no rear camera. Open the link from the verification page instead.</Text>;
  return <Camera style={styles.camera} device={device} isActive codeScanner={codeScanner} />;
}

const styles = StyleSheet.create({
  screen: { flex: 1, padding: 24, gap: 12 },
  heading: { fontSize: 22, fontWeight: '600' },
  camera: { flex: 1 },
});
