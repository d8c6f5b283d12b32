import { useCallback, useEffect, useMemo, useState } from 'react';
import type { OutputOf } from '../../../src-preload/contract';
import type { ContainerEngineEntry } from '../../../src-preload/contract/containers';
import { formatBytes } from '../../../src-preload/contract/units';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Icon } from '../components/Icon';
import { useAppStore, useClient } from '../store';
import './images.css';

/** The agent image the app builds (src-main/containers/images.ts AGENT_IMAGE). */
export const AGENT_IMAGE = 'flightdeck-agent:latest';
/** The repository of the agent image: any of its tags is an agent image (a user may keep older builds). */
const AGENT_REPO = 'flightdeck-agent';
/** An image id as `docker images` shows it: 12 hex digits, without the `sha256:` prefix. */
const SHORT_ID = 12;

type ContainerImage = OutputOf<'containers.images.list'>[number];
type Build = { buildId: string; engine: string; line: string; fraction: number; done: boolean; error: string | null; reason: string | null };

/** One row per tag, as `docker images` lists them; an untagged image is one row named by its id. */
interface ImageRow {
  ref: string;
  tag: string | null;
  image: ContainerImage;
}

function shortId(id: string): string {
  return id.replace(/^sha256:/, '').slice(0, SHORT_ID);
}

function day(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

function isAgentTag(tag: string): boolean {
  return tag.slice(0, tag.lastIndexOf(':')) === AGENT_REPO;
}

export function imageRows(images: ContainerImage[]): ImageRow[] {
  const rows: ImageRow[] = [];
  for (const image of [...images].sort((a, b) => b.createdAt - a.createdAt)) {
    if (image.tags.length === 0) rows.push({ ref: image.id, tag: null, image });
    for (const tag of [...image.tags].sort()) rows.push({ ref: tag, tag, image });
  }
  return rows;
}

/**
 * An engine's local images: the agent image's build (progress, cancel, the build's own error),
 * each image by tag (untagged ones by id) with its size and age, and its removal after saying
 * what goes; the engine's refusal (a container uses it) is a toast naming that container.
 */
export function ImagesSection({ engines }: { engines: ContainerEngineEntry[] | null }) {
  const client = useClient();
  const toastError = useAppStore((s) => s.toastError);
  const reachable = useMemo(() => (engines ?? []).filter((e) => e.info !== null), [engines]);
  const [chosen, setChosen] = useState('');
  const engine = reachable.some((e) => e.spec.name === chosen) ? chosen : (reachable[0]?.spec.name ?? '');
  const [images, setImages] = useState<ContainerImage[] | null>(null);
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  const [build, setBuild] = useState<Build | null>(null);
  const [removing, setRemoving] = useState<ImageRow | null>(null);

  useEffect(() => {
    if (!engine) return;
    let live = true;
    setImages(null);
    client.invoke('containers.images.list', { engine }).then(
      (list) => live && setImages(list),
      (e: unknown) => {
        if (!live) return;
        setImages([]);
        toastError(`Could not list the images of ${engine}`, e);
      },
    );
    return () => {
      live = false;
    };
    // `engines` changes when the view is refreshed: the list is read again with it.
  }, [client, engine, engines, generation, toastError]);

  useEffect(
    () =>
      client.on('containers.images.progress', (u) => {
        setBuild((b) => (b && b.buildId === u.buildId ? { ...b, line: u.progress.line || b.line, fraction: u.progress.fraction, done: u.done, error: u.error?.message ?? null, reason: u.error?.reason ?? null } : b));
        // A finished build (or one that failed after tagging nothing) changes the engine's list.
        if (u.done) reload();
      }),
    [client, reload],
  );

  /** `pullBase`: the user asked for the base image to be pulled (never done unasked). */
  const startBuild = async (pullBase = false) => {
    try {
      const { buildId } = await client.invoke('containers.images.build', { engine, ...(pullBase ? { pullBase } : {}) });
      setBuild({ buildId, engine, line: pullBase ? 'Pulling the base image, then building…' : 'Starting…', fraction: 0, done: false, error: null, reason: null });
    } catch (e) {
      toastError('Could not start the image build', e);
    }
  };

  const remove = async (row: ImageRow) => {
    setRemoving(null);
    try {
      await client.invoke('containers.images.remove', { engine, ref: row.ref });
    } catch (e) {
      toastError(`Could not remove ${row.tag ?? shortId(row.ref)}`, e);
    }
    reload();
  };

  const building = build !== null && !build.done;
  const rows = images ? imageRows(images) : [];

  return (
    <section className="images-section" data-testid="images-section">
      <h2>Images</h2>
      <p className="images-intro">
        The agent image <code>{AGENT_IMAGE}</code>: CUDA 12.1 runtime, Node, the claude CLI, git, Python 3 and build tools, with your user's ids. Any local image with a shell can be a session's image instead. Flightdeck never pulls images by itself: the
        build needs its base image (<code>nvidia/cuda:12.1.1-runtime-ubuntu22.04</code>) on the engine.
      </p>
      {engines !== null && reachable.length === 0 && <p>No reachable engine: start Docker, or fix an engine above, then refresh.</p>}
      {reachable.length > 0 && (
        <div className="images-toolbar">
          <label className="images-engine">
            Engine{' '}
            <select className="input" value={engine} onChange={(e) => setChosen(e.target.value)} disabled={building} data-testid="image-engine">
              {reachable.map((e) => (
                <option key={e.spec.name} value={e.spec.name}>
                  {e.spec.name}
                  {e.info?.local === false ? ' (remote)' : ''}
                </option>
              ))}
            </select>
          </label>
          <button className="button" disabled={building} onClick={() => void startBuild()} data-testid="image-build">
            Build the agent image
          </button>
          <button className="button" onClick={reload} aria-label={`Reload the images of ${engine}`} data-testid="image-reload">
            <Icon name="refresh" /> Reload
          </button>
        </div>
      )}
      {build && !build.done && (
        <div className="images-progress" data-testid="image-build-progress">
          <progress max={1} value={build.fraction} aria-label={`Building ${AGENT_IMAGE} on ${build.engine}`} />
          <span className="images-progress-line">{build.line}</span>
          <button className="button" onClick={() => void client.invoke('containers.images.cancel', { buildId: build.buildId })}>
            Cancel
          </button>
        </div>
      )}
      {build?.done && (
        <p className={build.error ? 'images-error' : undefined} role={build.error ? 'alert' : 'status'} data-testid="image-build-result">
          {build.error ? `The build on ${build.engine} failed: ${build.error}` : `${AGENT_IMAGE} is built on ${build.engine}.`}
          {build.reason === 'base_image_missing' && build.engine === engine && (
            <>
              {' '}
              <button className="button" onClick={() => void startBuild(true)} data-testid="image-build-pull">
                Pull the base and build
              </button>
            </>
          )}
        </p>
      )}
      {engine && images === null && <p>Reading the images of {engine}…</p>}
      {images?.length === 0 && <p>No images on {engine}.</p>}
      {rows.length > 0 && (
        <table className="table images-table" data-testid="image-list">
          <thead>
            <tr>
              <th scope="col">Image</th>
              <th scope="col">ID</th>
              <th scope="col">Size</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span className="images-sr">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.image.id}/${r.ref}`} data-testid="image-row" data-ref={r.ref}>
                <td className="images-name">
                  {r.tag ? <code>{r.tag}</code> : <span className="muted">untagged</span>}
                  {r.tag && isAgentTag(r.tag) && <span className="badge badge-ok images-agent">agent image</span>}
                </td>
                <td>
                  <code>{shortId(r.image.id)}</code>
                </td>
                <td className="images-num">{formatBytes(r.image.sizeBytes)}</td>
                <td className="images-num" title={new Date(r.image.createdAt).toLocaleString()}>
                  {day(r.image.createdAt)}
                </td>
                <td className="images-actions">
                  <button className="button" onClick={() => setRemoving(r)} aria-label={`Remove ${r.tag ?? `the untagged image ${shortId(r.image.id)}`}`} data-testid="image-remove">
                    <Icon name="trash" /> Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {removing && (
        <ConfirmDialog title={removing.tag ? `Remove ${removing.tag}?` : 'Remove the untagged image?'} confirmLabel="Remove" onConfirm={() => void remove(removing)} onCancel={() => setRemoving(null)}>
          <RemovalText row={removing} engine={engine} />
        </ConfirmDialog>
      )}
    </section>
  );
}

/** What a removal takes away: the tag alone while another tag keeps the image, else the image and its size. */
function RemovalText({ row, engine }: { row: ImageRow; engine: string }) {
  const others = row.image.tags.filter((t) => t !== row.tag);
  if (row.tag && others.length > 0) {
    return (
      <p>
        Removes the tag <code>{row.tag}</code> from {engine}. The image {shortId(row.image.id)} stays: it is also tagged {others.join(', ')}.
      </p>
    );
  }
  return (
    <>
      <p>
        Removes the image {row.tag ? <code>{row.tag}</code> : 'without a tag'} ({shortId(row.image.id)}, {formatBytes(row.image.sizeBytes)}) from {engine}. Layers other images share stay.
      </p>
      {row.tag && isAgentTag(row.tag) && <p>Sessions placed in a container with this image cannot start until it is built again.</p>}
      <p>The engine refuses while a container uses the image; Flightdeck never pulls it back.</p>
    </>
  );
}
