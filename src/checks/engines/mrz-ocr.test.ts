import { symbolChoices } from './mrz-ocr';

/** tesseract's hOCR with lstm_choice_mode 2, as it writes one word (trimmed to three symbols). */
const HOCR = `<span class='ocrx_word' id='word_1_2' title='bbox 41 93 1675 141; x_wconf 55'>15G
     <span class='ocrx_cinfo' id='lstm_choices_1_2_1'>
      <span class='ocrx_cinfo' id='choice_1_2_1' title='x_confs 94.1'>1</span>
      <span class='ocrx_cinfo' id='choice_1_2_2' title='x_confs 0'>I</span></span>
     <span class='ocrx_cinfo' id='lstm_choices_1_2_2'>
      <span class='ocrx_cinfo' id='choice_1_2_3' title='x_confs 93.0'>5</span></span>
     <span class='ocrx_cinfo' id='lstm_choices_1_2_3'>
      <span class='ocrx_cinfo' id='choice_1_2_4' title='x_confs 85.2'>G</span>
      <span class='ocrx_cinfo' id='choice_1_2_5' title='x_confs 35.4'>6</span>
      <span class='ocrx_cinfo' id='choice_1_2_6' title='x_confs 2.5'>&lt;</span></span>
    </span>`;

describe('symbolChoices (tesseract hOCR alternatives per symbol)', () => {
  it('gives each symbol the other characters weighed, strongest first, leaving out those at 0', () => {
    expect(symbolChoices(HOCR, ['1', '5', 'G'])).toEqual([[], [], [{ char: '6', confidence: 0.354 }, { char: '<', confidence: 0.025 }]]);
  });

  it('gives none when the groups do not line up with the symbols', () => {
    expect(symbolChoices(HOCR, ['1', '5'])).toBeUndefined();
    expect(symbolChoices(HOCR, ['1', '5', 'Q'])).toBeUndefined();
    expect(symbolChoices('', ['1'])).toBeUndefined();
  });
});
