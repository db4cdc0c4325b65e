/**
 * The UI library's "Add hosts" dialog shows a discovery ISO's URL and says it "is ready to be
 * downloaded". Where no RHCOS live ISO was imported, the local runtime builds the image from a
 * SYNTHETIC stand-in that does not boot (README, "Discovery ISOs"); the CLI says so when it
 * downloads one, and so does this notice, placed inside the library's dialog (which has no slot for
 * it) once the image service answers for the URL shown with its `X-Assisted-Base-Image: SYNTHETIC…`
 * header. The image is composed when its URL is issued, so the HEAD request costs no build.
 */
import React from 'react';
import { createPortal } from 'react-dom';
import { Alert, ClipboardCopy, Content } from '@patternfly/react-core';

/** The library's dialog (its id) and where the notice goes in it. */
const DIALOG_SELECTOR = '#generate-discovery-iso-modal';
const NOTICE_SLOT_CLASS = 'console-synthetic-image-slot';

export interface SyntheticImage {
  url: string;
  version?: string;
  arch?: string;
  type?: string;
}

/** What the image service says of the image behind a URL: SYNTHETIC or not (a failure says nothing). */
async function isSynthetic(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { method: 'HEAD', redirect: 'manual' });
    return /^SYNTHETIC/.test(response.headers.get('X-Assisted-Base-Image') ?? '');
  } catch {
    return false;
  }
}

/** The command that imports a real base image for the release the URL names. */
export function importCommand(image: SyntheticImage): string {
  const type = image.type === 'minimal-iso' ? 'minimal-iso' : 'full-iso';
  return `npm run import-iso -- --version ${image.version ?? '<version>'} --arch ${image.arch ?? 'x86_64'} --type ${type} --file rhcos-live.${image.arch ?? 'x86_64'}.iso`;
}

export const SyntheticImageNotice: React.FC = () => {
  const [found, setFound] = React.useState<{ slot: HTMLElement; image: SyntheticImage }>();
  React.useEffect(() => {
    const checked = new Map<string, Promise<boolean>>();
    const look = () => {
      const dialog = document.querySelector(DIALOG_SELECTOR);
      // The URL's field, not anything of ours placed in the dialog.
      const input = [...(dialog?.querySelectorAll<HTMLInputElement>('input[readonly]') ?? [])].find((candidate) => !candidate.closest(`.${NOTICE_SLOT_CLASS}`));
      const url = input?.value ?? '';
      if (!dialog || !/\/images\//.test(url) || !/[?&]image_token=/.test(url)) {
        setFound(undefined);
        return;
      }
      if (!checked.has(url)) checked.set(url, isSynthetic(url));
      void checked.get(url)!.then((synthetic) => {
        const body = dialog.querySelector('.pf-v6-c-modal-box__body');
        if (!synthetic || !body || !dialog.isConnected) return;
        let slot = body.querySelector<HTMLElement>(`.${NOTICE_SLOT_CLASS}`);
        if (!slot) {
          slot = document.createElement('div');
          slot.className = `${NOTICE_SLOT_CLASS} pf-v6-u-mb-md`;
          body.prepend(slot);
        }
        const query = new URL(url, window.location.origin).searchParams;
        const image = { url, version: query.get('version') ?? undefined, arch: query.get('arch') ?? undefined, type: query.get('type') ?? undefined };
        setFound((current) => (current?.slot === slot && current.image.url === url ? current : { slot: slot!, image }));
      });
    };
    const observer = new MutationObserver(look);
    observer.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['value'] });
    return () => observer.disconnect();
  }, []);
  if (!found) return null;
  return createPortal(
    <Alert variant="warning" isInline title="SYNTHETIC image: it will not boot" data-testid="synthetic-image-notice">
      <Content component="p">
        No RHCOS live ISO was imported for this release, so this discovery ISO is made from a SYNTHETIC stand-in (not RHCOS): it downloads, but no machine boots
        from it. Hosts for a lab can be simulated instead (<strong>Boot simulated hosts</strong> on the cluster page).
      </Content>
      <Content component="p">
        To make images that boot real hosts, import the RHCOS live ISO of the release once on the machine that runs the service (README, “Discovery ISOs”):
      </Content>
      {/* Inline, not a text field: the dialog's first read-only field stays the ISO's URL, for those who read it. */}
      <ClipboardCopy variant="inline-compact" isCode hoverTip="Copy" clickTip="Copied" data-testid="import-iso-command">
        {importCommand(found.image)}
      </ClipboardCopy>
    </Alert>,
    found.slot,
  );
};
