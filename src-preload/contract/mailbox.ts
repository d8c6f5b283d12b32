/**
 * The agent mailbox in the UI: create a task (a command file in the project's mailbox), browse
 * reports and ADRs across projects, read AGENT_MISSION.md, and view or edit the layered context
 * with a preview of the composed prompt. Files are named by project and id, never by a path the
 * renderer chose.
 */
import { z } from 'zod';
import { event, request } from './define';
import { ProjectId } from './projects';
import { ContainerGpuRequest, ContainerLimits, ContainerNetworkMode, ContainerPlacement } from './containers';

/** Command ids become file names (letters, digits, ".", "_", "-"). */
export const CommandId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'not a command id');
export const MailboxSessionId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'not a session id');
export const ReportStatus = z.enum(['SUCCESS', 'FAILED', 'PARTIAL_SUCCESS']);
export type ReportStatus = z.infer<typeof ReportStatus>;
export const ContextLayer = z.enum(['global', 'project', 'task']);
export type ContextLayer = z.infer<typeof ContextLayer>;
/** Context files are Markdown files directly in their layer's folder. */
export const ContextFileName = z.string().regex(/^[A-Za-z0-9\u4e00-\u9fff][\w\u4e00-\u9fff. -]{0,100}\.md$/, 'a context file is a name ending in .md (letters, digits, "-", "_", ".", spaces)');

/**
 * A task's container settings (the containers contract's types); each optional, the session's
 * or the mailbox's defaults fill the rest. Written as the command file's container keys, which
 * go with placement "container" only (the writer refuses them otherwise, naming the key).
 */
export const TaskContainer = z
  .object({
    engine: ContainerPlacement.shape.engine,
    image: ContainerPlacement.shape.image.optional(),
    gpus: ContainerGpuRequest.optional(),
    limits: ContainerLimits.partial().optional(),
    network: ContainerNetworkMode.optional(),
  })
  .strict();
export type TaskContainer = z.infer<typeof TaskContainer>;

export const ReportSummary = z.object({
  projectId: z.string().nullable(),
  projectName: z.string().nullable(),
  commandId: z.string(),
  sessionId: z.string(),
  status: ReportStatus,
  tags: z.array(z.string()),
  reportDate: z.string(),
  title: z.string(),
  commit: z.string().nullable(),
  hasCommandFile: z.boolean(),
});
export type ReportSummary = z.infer<typeof ReportSummary>;

export const ReportDetail = z.object({
  summary: ReportSummary,
  report: z.string(),
  detailedReport: z.string().nullable(),
  commandFile: z.string().nullable(),
  debugLog: z.string().nullable(),
  /** The agent session is in this Flightdeck (its transcript can be opened). */
  sessionKnown: z.boolean(),
  /** `git show --stat` of the commit, when the report names one and the workspace has it. */
  commitText: z.string().nullable(),
});
export type ReportDetail = z.infer<typeof ReportDetail>;

export const AdrSummary = z.object({ projectId: z.string().nullable(), projectName: z.string().nullable(), number: z.number().int(), title: z.string(), modifiedAt: z.number() });
export type AdrSummary = z.infer<typeof AdrSummary>;

export const ContextFileView = z.object({ layer: ContextLayer, name: z.string(), title: z.string(), priority: z.number(), tags: z.array(z.string()), enabled: z.boolean(), text: z.string(), warnings: z.array(z.string()) });
export type ContextFileView = z.infer<typeof ContextFileView>;

export const MailboxStatus = z.object({
  projectId: ProjectId,
  root: z.string(),
  workspace: z.string(),
  watching: z.boolean(),
  pending: z.number().int(),
  running: z.array(z.object({ id: z.string(), file: z.string() })),
  sessions: z.array(z.object({ sessionId: z.string(), status: z.enum(['active', 'ended']), turnCount: z.number().int(), lastActivity: z.string() })),
});
export type MailboxStatus = z.infer<typeof MailboxStatus>;

const Text = z.string().max(200_000);

export const mailboxRequests = {
  'mailbox.status': request(z.object({ projectId: ProjectId }).strict(), MailboxStatus, "A project's mailbox: folders, whether it is watched, pending and running commands, sessions."),
  'mailbox.watch': request(z.object({ projectId: ProjectId, on: z.boolean() }).strict(), MailboxStatus, "Start (or stop) the watcher of a project's mailbox."),
  'mailbox.task.create': request(
    z
      .object({
        projectId: ProjectId,
        commandType: z.enum(['new', 'continue', 'end']),
        sessionId: MailboxSessionId.optional(),
        task: Text.min(1),
        constraints: Text.optional(),
        expectedOutput: Text.optional(),
        /** The language of the file's section headings: English unless the user picks the format's Chinese template. The text is kept as written. */
        headings: z.enum(['en', 'zh']).optional(),
        placement: z.enum(['host', 'container']).optional(),
        /** With placement "container": the container's engine, image, GPUs, limits and network (the session's or the mailbox's defaults fill the rest). */
        container: TaskContainer.optional(),
      })
      .strict(),
    z.object({ commandId: z.string(), file: z.string() }),
    "Write a command file into the project's mailbox (and start its watcher).",
  ),
  'mailbox.reports.list': request(
    z
      .object({
        projectId: ProjectId.optional(),
        status: ReportStatus.optional(),
        tag: z.string().max(100).optional(),
        /** ISO dates (inclusive), compared with report_date. */
        from: z.string().max(40).optional(),
        to: z.string().max(40).optional(),
        /** Words searched in the full text of both reports (all must occur, case-insensitive). */
        query: z.string().max(500).optional(),
      })
      .strict(),
    z.object({ reports: z.array(ReportSummary), tags: z.array(z.string()) }),
    'Reports across project mailboxes, newest first, filtered.',
  ),
  'mailbox.reports.get': request(z.object({ projectId: ProjectId, commandId: CommandId }).strict(), ReportDetail, 'One report with its detailed report, command file, debug log and commit.'),
  'mailbox.adrs.list': request(z.object({ projectId: ProjectId.optional() }).strict(), z.object({ adrs: z.array(AdrSummary) }), 'ADRs of the projects, by project and number.'),
  'mailbox.adrs.get': request(z.object({ projectId: ProjectId, number: z.number().int().positive() }).strict(), z.object({ text: z.string() }), 'The Markdown of one ADR.'),
  'mailbox.mission.get': request(z.object({ projectId: ProjectId }).strict(), z.object({ text: z.string().nullable() }), "The project's AGENT_MISSION.md (null when it has none yet)."),
  'mailbox.mission.create': request(z.object({ projectId: ProjectId, language: z.enum(['en', 'zh']) }).strict(), z.object({ text: z.string().nullable() }), "Creates the project's AGENT_MISSION.md from the English or the format's Chinese template (an existing one is kept); its text."),
  'mailbox.context.list': request(
    z.object({ projectId: ProjectId, taskId: CommandId.optional() }).strict(),
    z.object({ files: z.array(ContextFileView), composed: z.string(), bytes: z.number().int(), folders: z.object({ global: z.string(), project: z.string(), task: z.string().nullable() }) }),
    'The context layers of a project (and a task), in prompt order, with the composed text and its size.',
  ),
  'mailbox.context.save': request(
    z.object({ projectId: ProjectId, layer: ContextLayer, taskId: CommandId.optional(), name: ContextFileName, text: Text }).strict(),
    z.object({ ok: z.literal(true) }),
    'Create or replace one context file.',
  ),
} as const;

export const mailboxEvents = {
  'mailbox.changed': event(
    z.object({ projectId: z.string().nullable(), kind: z.enum(['started', 'finished', 'rejected']), commandId: z.string().nullable(), file: z.string(), status: z.string().nullable() }),
    'A mailbox task started or finished, or a command file was rejected.',
  ),
} as const;
