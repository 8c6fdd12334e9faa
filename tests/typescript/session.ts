// The README's first session, typed by clients generated with openapi-typescript from the
// live schemas (./v1 and ./api, written by tests/test_typescript_client.py) and called with
// openapi-fetch. `tsc --strict --noEmit` must accept it: every path, parameter, body and
// answer below is checked against the generated types; the @ts-expect-error lines must fail.
import createClient from "openapi-fetch";
import type { components as AC, paths as A } from "./v1";
import type { components as BC, paths as B } from "./api";

type ErrorCode = AC["schemas"]["ErrorA"]["error"]["code"];

export async function familyA(site: string, key: string): Promise<ErrorCode | "ok"> {
  const a = createClient<A>({ baseUrl: `${site}/v1`, headers: { Authorization: `Bearer ${key}` } });

  const brand = await a.POST("/brands", {
    body: {
      name: "Sunrise Coffee",
      description: "Small-batch roasters",
      guidelines: { voice: "warm, witty", tone: ["friendly"], colors: { primary: "#AA3300" }, hashtags: ["coffee"] },
    },
  });
  if (brand.error) return brand.error.error.code;
  const brandId: string = brand.data.id;

  const profiles = await a.GET("/profiles", { params: { query: { platform: "instagram", sortBy: "followerCount", limit: 20 } } });
  const platform: string | undefined = profiles.data?.data[0]?.platform;

  const generated = await a.POST("/content/generate", {
    params: { query: { wait: 30 } },
    body: {
      prompt: "Our new Ethiopian single origin, bright and floral",
      platforms: ["instagram", "x"],
      settings: { tone: "friendly", includeHashtags: true, hashtagCount: 3 },
    },
  });
  if (!generated.data) return generated.error.error.code;
  const id = generated.data.id;

  const read = await a.GET("/content/{id}", { params: { path: { id } } });
  const status: string | undefined = read.data?.status;

  await a.PUT("/content/{id}", {
    params: { path: { id } },
    body: { content: { instagram: { caption: "Bright, floral, ours." } } },
  });
  const approved = await a.POST("/content/{id}/approve", { params: { path: { id } } });
  if (approved.error) return approved.error.error.code;

  const listed = await a.GET("/content", {
    params: { query: { status: "approved", platform: "instagram", fields: "id,status", sortBy: "createdAt", sortOrder: "desc" } },
  });
  const ids: string[] = (listed.data?.data ?? []).map((c) => c.id);
  // `fields=` may leave out anything but the id: a partial object is a valid ContentOutput
  const partial: AC["schemas"]["ContentOutput"] = { id };

  const removed = await a.DELETE("/content/{id}", { params: { path: { id } } });
  if (removed.response.status !== 204) return "SERVER_ERROR";

  // @ts-expect-error an unknown platform is not a GenerateInput
  const badPlatform: AC["schemas"]["GenerateInputRequest"] = { prompt: "x", platforms: ["myspace"] };
  // @ts-expect-error sortBy takes the list's own fields only
  await a.GET("/profiles", { params: { query: { sortBy: "virality" } } });
  // @ts-expect-error the export's format is csv or json
  await a.GET("/analytics/export", { params: { query: { format: "xml" } } });

  void [brandId, platform, status, ids, partial, badPlatform];
  return "ok";
}

export async function familyB(site: string, token: string, profileId: string): Promise<string> {
  const b = createClient<B>({ baseUrl: `${site}/api`, headers: { Authorization: `Bearer ${token}` } });

  const created = await b.POST("/brands", { body: { name: "Harbour Bakery", settings: { require_approval: false } } });
  if (!created.data) return created.error.error;
  const brand: BC["schemas"]["BrandOutput"] = created.data.data;

  const settings = await b.PUT("/brands/{id}/settings", {
    params: { path: { id: brand.id } },
    body: { brand_voice: "cosy", hashtags: ["bread"], guidelines: { do: ["say good morning"] } },
  });
  const voice: string | undefined = settings.data?.data.brand_voice;

  const authorize = await b.POST("/oauth/{platform}/authorize", {
    params: { path: { platform: "instagram" } },
    body: { redirectUri: "https://app.example.com/connected", brandId: brand.id },
  });
  const authUrl: string | undefined = authorize.data?.data.authUrl;  // the browser step happens there

  const profile = await b.GET("/profiles/{id}", { params: { path: { id: profileId } } });
  if (!profile.data) return profile.error.error;

  const content = await b.POST("/content", { body: { socialProfileId: profile.data.data.id, prompt: "Sourdough fresh at 7" } });
  if (!content.data) return content.error.error;
  let item: BC["schemas"]["ContentOutput"] = content.data.data;
  for (let i = 0; i < 300 && item.status !== "reviewing"; i++) {
    const again = await b.GET("/content/{id}", { params: { path: { id: item.id } } });
    if (again.data) item = again.data.data;
  }

  const listed = await b.GET("/content", { params: { query: { sort: "createdAt:desc", limit: 20, platform: "instagram" } } });
  const total: number | undefined = listed.data?.pagination.total;

  // @ts-expect-error sort names the list's fields, with :asc or :desc
  await b.GET("/content", { params: { query: { sort: "virality:desc" } } });
  // @ts-expect-error Family B ids are path parameters, not query parameters
  await b.GET("/profiles/{id}", { params: { query: { id: profileId } } });

  void [voice, authUrl, total];
  return item.status;
}
