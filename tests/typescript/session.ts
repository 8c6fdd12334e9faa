// A user's whole first session in both families, typed by clients generated with
// openapi-typescript from the live schemas (./v1 and ./api, written by
// tests/test_typescript_client.py) and called with openapi-fetch. `tsc --strict` must accept it
// (every path, parameter, body and answer below is checked against the generated types; each
// line marked to expect an error must fail), and then it runs under Node against the real server:
// `node session.js <site> <key> <profileA> <profileB> <hookUrl>` prints what each step answered,
// as JSON, for the Python test to check against the database and the webhook receiver.
import createClient from "openapi-fetch";
import type { components as AC, paths as A } from "./v1";
import type { components as BC, paths as B } from "./api";

declare const process: { argv: string[]; exitCode?: number };

type ErrorCode = AC["schemas"]["ErrorA"]["error"]["code"];
type Steps = Record<string, unknown>;

class Refused extends Error {}

function must<T>(step: string, answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data === undefined) throw new Refused(`${step}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  return answer.data;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function later(days: number): string {
  const when = new Date(Date.now() + days * 86400000);
  return `${when.toISOString().slice(0, 10)}T09:00:00`; // 9:00 in the time zone named beside it
}

/** A small PNG (1x1, red): what a user uploads as a logo or a reference image. */
function png(): Blob {
  const bytes = Uint8Array.from(
    atob(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC",
    ),
    (c) => c.charCodeAt(0),
  );
  return new Blob([bytes], { type: "image/png" });
}

function multipart(fields: Record<string, string>): FormData {
  const form = new FormData();
  form.append("file", png(), "logo.png");
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

export async function familyA(site: string, key: string, profileId: string, hookUrl: string): Promise<Steps> {
  const a = createClient<A>({ baseUrl: `${site}/v1`, headers: { Authorization: `Bearer ${key}` } });
  const steps: Steps = {};

  const brand = must("brand", await a.POST("/brands", {
    body: {
      name: "Sunrise Coffee",
      description: "Small-batch roasters",
      guidelines: { voice: "warm, witty", tone: ["friendly"], colors: { primary: "#AA3300" }, hashtags: ["coffee"] },
    },
  }));
  steps.brand = brand.id;

  const logo = must("upload", await a.POST("/brands/{brand_pk}/assets", {
    params: { path: { brand_pk: brand.id } },
    body: { file: "logo.png", type: "logo" },
    bodySerializer: () => multipart({ type: "logo" }),
  }));
  const logoType: "image" | "video" | "font" = logo.type; // an upload may be a brand font (issue 30)
  steps.upload = [logo.assetId, logoType];

  const profiles = must("profiles", await a.GET("/profiles", { params: { query: { platform: "instagram", sortBy: "followerCount", limit: 20 } } }));
  const platform: AC["schemas"]["ProfilePlatformEnum"] | undefined = profiles.data[0]?.platform;
  steps.profiles = [profiles.data.map((p) => p.id), platform];

  const generated = must("generate", await a.POST("/content/generate", {
    params: { query: { wait: 30 } },
    body: {
      prompt: "Our new Ethiopian single origin, bright and floral",
      platforms: ["instagram"],
      settings: { tone: "friendly", includeHashtags: true, hashtagCount: 3 },
    },
  }));
  const id = generated.id;
  const status: AC["schemas"]["ContentStatusEnum"] | undefined = generated.status;
  steps.generate = [id, status];

  const pages = [];
  for (const page of [1, 2]) {
    const listed = must("list", await a.GET("/content", {
      params: { query: { status: "generated", platform: "instagram", sortBy: "createdAt", sortOrder: "asc", limit: 1, page } },
    }));
    pages.push({ ids: listed.data.map((c) => c.id), total: listed.pagination.total, pages: listed.pagination.pages });
  }
  steps.list = pages;

  const updated = must("update", await a.PUT("/content/{id}", {
    params: { path: { id } },
    body: { content: { instagram: { caption: "Bright, floral, ours." } } },
  }));
  steps.update = updated.content?.["instagram"]?.caption;
  const approved = must("approve", await a.POST("/content/{id}/approve", { params: { path: { id } } }));
  steps.approve = approved.status;

  const scheduled = must("schedule", await a.POST("/content/{id}/schedule", {
    params: { path: { id } },
    body: { scheduledFor: later(2), profiles: [profileId], options: { timezone: "Europe/Paris", firstComment: "Link in bio" } },
  }));
  const publicationStatus: AC["schemas"]["PublicationStatusEnum"] | undefined = scheduled.publications?.[0]?.status;
  steps.schedule = [scheduled.status, publicationStatus, scheduled.publications?.[0]?.scheduledFor];
  const onSchedule = must("scheduled list", await a.GET("/content", { params: { query: { status: "scheduled" } } }));
  steps.scheduled = onSchedule.data.map((c) => c.id);

  // the first page's other post: approved, then published now by the worker
  const other = (pages[0]?.ids[0] === id ? pages[1]?.ids[0] : pages[0]?.ids[0]) ?? "";
  must("approve other", await a.POST("/content/{id}/approve", { params: { path: { id: other } } }));
  const publishing = must("publish", await a.POST("/content/{id}/publish", { params: { path: { id: other } }, body: { profiles: [profileId] } }));
  let published = publishing;
  for (let i = 0; i < 300 && published.status !== "published"; i++) {
    await sleep(300);
    published = must("read", await a.GET("/content/{id}", { params: { path: { id: other } } }));
  }
  steps.publish = [publishing.status, published.status, published.publications?.[0]?.url];

  const hook = must("webhook", await a.POST("/webhooks", { body: { url: `${hookUrl}/a`, events: ["content.published"] } }));
  const test = must("webhook test", await a.POST("/webhooks/{id}/test", { params: { path: { id: hook.id } } }));
  steps.webhook = [hook.id, hook.secret?.startsWith("whsec_"), test.eventType];

  const today = new Date().toISOString().slice(0, 10);
  const report = must("analytics", await a.GET("/analytics/content", { params: { query: { startDate: "2026-01-01", endDate: today } } }));
  const mine = must("profile analytics", await a.GET("/analytics/profiles/{id}", { params: { path: { id: profileId } } }));
  steps.analytics = [Object.keys(report).sort(), Object.keys(mine).sort()];
  // typed reports (issue 28): these read through the declared fields, not an untyped object
  const totalPosts: number | undefined = report.metrics?.totalPosts;
  const profileOf: string | undefined = mine.profile?.id;
  steps.analyticsTyped = [totalPosts ?? null, profileOf ?? null, report.breakdown?.length ?? null];

  const removed = await a.DELETE("/content/{id}", { params: { path: { id } } });
  const again = await a.GET("/content/{id}", { params: { path: { id } } });
  const code: ErrorCode | undefined = again.error?.error.code;
  steps.delete = [removed.response.status, again.response.status, code];

  // what the generated types refuse
  // @ts-expect-error an unknown platform is not a GenerateInput
  const badPlatform: AC["schemas"]["GenerateInputRequest"] = { prompt: "x", platforms: ["myspace"] };
  // @ts-expect-error sortBy takes the list's own fields only
  await a.GET("/profiles", { params: { query: { sortBy: "virality" } } });
  // @ts-expect-error the export's format is csv or json
  await a.GET("/analytics/export", { params: { query: { format: "xml" } } });
  // @ts-expect-error a schedule body is an object with scheduledFor, not a number
  const badSchedule: AC["schemas"]["ScheduleInputRequest"] = 42;
  // @ts-expect-error a publish body's profiles are a list of ids
  const badPublish: AC["schemas"]["PublishInputRequest"] = { profiles: "prf_1" };
  // @ts-expect-error the connect body names a platform the service knows
  const badConnect: AC["schemas"]["ConnectInputRequest"] = { platform: "myspace", redirectUri: "https://app.example.com" };
  // @ts-expect-error a content status outside the set
  const badStatus: AC["schemas"]["ContentOutput"]["status"] = "virality";
  // `fields=` may leave out anything but the id: a partial object is a valid ContentOutput
  const partial: AC["schemas"]["ContentOutput"] = { id };
  void [badPlatform, badSchedule, badPublish, badConnect, badStatus, partial];
  return steps;
}

export async function familyB(site: string, token: string, profileId: string, hookUrl: string): Promise<Steps> {
  const b = createClient<B>({ baseUrl: `${site}/api`, headers: { Authorization: `Bearer ${token}` } });
  const steps: Steps = {};

  const brand: BC["schemas"]["BrandOutput"] = must("brand", await b.POST("/brands", { body: { name: "Harbour Bakery", settings: { require_approval: false } } })).data;
  const settings = must("settings", await b.PUT("/brands/{id}/settings", {
    params: { path: { id: brand.id } },
    body: { brand_voice: "cosy", hashtags: ["bread"], guidelines: { do: ["say good morning"] } },
  }));
  steps.brand = [brand.id, settings.data.brand_voice];

  const uploaded = must("upload", await b.POST("/media/upload", {
    body: { file: "loaf.png", brandId: brand.id, kind: "reference" },
    bodySerializer: () => multipart({ brandId: brand.id, kind: "reference" }),
  })).data;
  steps.upload = [uploaded.id, uploaded.kind, uploaded.type];

  const authorize = must("authorize", await b.POST("/oauth/{platform}/authorize", {
    params: { path: { platform: "instagram" } },
    body: { redirectUri: "https://app.example.com/connected", brandId: brand.id },
  }));
  steps.authorize = authorize.data.authUrl.includes("/oauth/sandbox/instagram/authorize");

  const profile = must("profile", await b.GET("/profiles/{id}", { params: { path: { id: profileId } } })).data;
  const tokenStatus: BC["schemas"]["TokenStatusEnum"] = profile.tokenStatus;
  steps.profile = [profile.id, tokenStatus, profile.sandbox];

  const created = must("generate", await b.POST("/content", { body: { socialProfileId: profile.id, prompt: "Sourdough fresh at 7" } }));
  let item: BC["schemas"]["ContentOutput"] = created.data;
  for (let i = 0; i < 300 && item.status !== "reviewing"; i++) {
    await sleep(300);
    item = must("read", await b.GET("/content/{id}", { params: { path: { id: item.id } } })).data;
  }
  steps.generate = [item.id, item.status];

  const pages = [];
  for (const page of [1, 2]) {
    const listed = must("list", await b.GET("/content", {
      params: { query: { profileId: profile.id, platform: "instagram", sort: "createdAt:asc", limit: 1, page } },
    }));
    pages.push({ ids: listed.data.map((c) => c.id), total: listed.pagination.total, hasNext: listed.pagination.hasNext });
  }
  steps.list = pages;

  const updated = must("update", await b.PUT("/content/{id}", {
    params: { path: { id: item.id } },
    body: { content: { instagram: { caption: "Warm sourdough, 7 sharp." } } },
  })).data;
  steps.update = updated.content["instagram"]?.caption;
  steps.approve = must("approve", await b.POST("/content/{id}/approve", { params: { path: { id: item.id } } })).data.status;

  const scheduled = must("schedule", await b.POST("/posts/scheduled", {
    body: { contentId: item.id, profileIds: [profile.id], scheduledFor: later(3), timezone: "Europe/Paris" },
  })).data;
  const queue = must("scheduled list", await b.GET("/posts/scheduled", { params: { query: { profileId: profile.id } } }));
  steps.schedule = [scheduled.status, queue.data.map((p) => [p.contentId, p.status])];

  const other = (pages[0]?.ids[0] === item.id ? pages[1]?.ids[0] : pages[0]?.ids[0]) ?? "";
  const publishing = must("publish", await b.POST("/posts/publish", { body: { contentId: other, profileIds: [profile.id] } })).data;
  let published = publishing;
  for (let i = 0; i < 300 && published.status !== "published"; i++) {
    await sleep(300);
    published = must("read", await b.GET("/content/{id}", { params: { path: { id: other } } })).data;
  }
  steps.publish = [publishing.status, published.status];

  const hook = must("webhook", await b.POST("/webhooks", { body: { url: `${hookUrl}/b`, events: ["*"] } })).data;
  const test = must("webhook test", await b.POST("/webhooks/{id}/test", { params: { path: { id: hook.id } } })).data;
  steps.webhook = [hook.id, test.eventType];

  const overview = must("overview", await b.GET("/analytics/overview", { params: { query: { period: "30d" } } }));
  const mine = must("profile analytics", await b.GET("/analytics/profiles", { params: { query: { profileId: profile.id, period: "7d" } } }));
  steps.analytics = [Object.keys(overview.data).sort(), Object.keys(mine.data).sort()];
  const postsNow: number = overview.data.posts.current;
  const failures: number = overview.data.failures;
  steps.analyticsTyped = [postsNow, failures, overview.data.topPosts.map((t) => t.contentId)];

  const removed = await b.DELETE("/content/{id}", { params: { path: { id: item.id } } });
  const again = await b.GET("/content/{id}", { params: { path: { id: item.id } } });
  steps.delete = [removed.response.status, again.response.status];

  // @ts-expect-error sort names the list's fields, with :asc or :desc
  await b.GET("/content", { params: { query: { sort: "virality:desc" } } });
  // @ts-expect-error Family B ids are path parameters, not query parameters
  await b.GET("/profiles/{id}", { params: { query: { id: profileId } } });
  // @ts-expect-error a publication status outside the set
  const badStatus: BC["schemas"]["PublicationOutput"]["status"] = "virality";
  void badStatus;
  return steps;
}

async function main(): Promise<void> {
  const [site, key, profileA, profileB, hookUrl] = process.argv.slice(2);
  if (!site || !key || !profileA || !profileB || !hookUrl) throw new Error("usage: session.js site key profileA profileB hookUrl");
  const a = await familyA(site, key, profileA, hookUrl);
  const b = await familyB(site, key, profileB, hookUrl);
  console.log(JSON.stringify({ a, b }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exitCode = 1;
});
