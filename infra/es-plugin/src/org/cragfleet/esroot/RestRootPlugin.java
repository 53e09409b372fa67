/*
 * crag-fleet infra: the pieces of the full Elasticsearch distribution that the
 * Maven Central integ-test-zip leaves out and that our clients rely on.
 *
 *  - GET / and HEAD /  (module "rest-root" in the full distribution): the Python
 *    client's info()/ping() and langchain-elasticsearch's es_url= connection test.
 *  - the "english" analyzer (module "analysis-common"): Lucene's EnglishAnalyzer,
 *    which is already on the server classpath (lucene-analysis-common).
 *
 * Built by infra/up with javac against the distribution's lib/*.jar; local dev only.
 */
package org.cragfleet.esroot;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.elasticsearch.Build;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.cluster.ClusterName;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.cluster.node.DiscoveryNodes;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.common.bytes.BytesArray;
import org.elasticsearch.common.io.stream.NamedWriteableRegistry;
import org.elasticsearch.common.settings.ClusterSettings;
import org.elasticsearch.common.settings.IndexScopedSettings;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.settings.SettingsFilter;
import org.elasticsearch.env.Environment;
import org.elasticsearch.features.NodeFeature;
import org.elasticsearch.index.IndexSettings;
import org.elasticsearch.index.analysis.AbstractIndexAnalyzerProvider;
import org.elasticsearch.index.analysis.Analysis;
import org.elasticsearch.index.analysis.AnalyzerProvider;
import org.elasticsearch.indices.analysis.AnalysisModule.AnalysisProvider;
import org.elasticsearch.node.Node;
import org.elasticsearch.plugins.ActionPlugin;
import org.elasticsearch.plugins.AnalysisPlugin;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestController;
import org.elasticsearch.rest.RestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.RestResponse;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.xcontent.XContentBuilder;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.Supplier;

public class RestRootPlugin extends Plugin implements ActionPlugin, AnalysisPlugin {

    private final AtomicReference<ClusterService> clusterService = new AtomicReference<>();

    @Override
    public Collection<?> createComponents(PluginServices services) {
        clusterService.set(services.clusterService());
        return List.of();
    }

    @Override
    public Collection<RestHandler> getRestHandlers(
        Settings settings,
        NamedWriteableRegistry namedWriteableRegistry,
        RestController restController,
        ClusterSettings clusterSettings,
        IndexScopedSettings indexScopedSettings,
        SettingsFilter settingsFilter,
        IndexNameExpressionResolver indexNameExpressionResolver,
        Supplier<DiscoveryNodes> nodesInCluster,
        Predicate<NodeFeature> clusterSupportsFeature
    ) {
        return List.of(new RootHandler(settings, clusterService));
    }

    @Override
    public Map<String, AnalysisProvider<AnalyzerProvider<? extends Analyzer>>> getAnalyzers() {
        return Map.of("english", EnglishProvider::new);
    }

    static final class EnglishProvider extends AbstractIndexAnalyzerProvider<EnglishAnalyzer> {
        private final EnglishAnalyzer analyzer;

        EnglishProvider(IndexSettings indexSettings, Environment env, String name, Settings settings) {
            super(name, settings);
            analyzer = new EnglishAnalyzer(
                Analysis.parseStopWords(env, settings, EnglishAnalyzer.getDefaultStopSet()),
                Analysis.parseStemExclusion(settings, org.apache.lucene.analysis.CharArraySet.EMPTY_SET)
            );
        }

        @Override
        public EnglishAnalyzer get() {
            return analyzer;
        }
    }

    static final class RootHandler extends BaseRestHandler {
        private final String nodeName;
        private final String clusterName;
        private final AtomicReference<ClusterService> clusterService;

        RootHandler(Settings settings, AtomicReference<ClusterService> clusterService) {
            this.nodeName = Node.NODE_NAME_SETTING.get(settings);
            this.clusterName = ClusterName.CLUSTER_NAME_SETTING.get(settings).value();
            this.clusterService = clusterService;
        }

        @Override
        public String getName() {
            return "crag_rest_root_action";
        }

        @Override
        public List<Route> routes() {
            return List.of(new Route(RestRequest.Method.GET, "/"), new Route(RestRequest.Method.HEAD, "/"));
        }

        @Override
        protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) {
            return channel -> {
                if (request.method() == RestRequest.Method.HEAD) {
                    channel.sendResponse(new RestResponse(RestStatus.OK, "application/json", BytesArray.EMPTY));
                    return;
                }
                ClusterService cs = clusterService.get();
                String uuid = cs == null ? "_na_" : cs.state().metadata().clusterUUID();
                Build build = Build.current();
                XContentBuilder b = channel.newBuilder();
                b.startObject();
                b.field("name", nodeName);
                b.field("cluster_name", clusterName);
                b.field("cluster_uuid", uuid);
                b.startObject("version")
                    .field("number", build.qualifiedVersion())
                    .field("build_flavor", build.flavor())
                    .field("build_type", build.type().displayName())
                    .field("build_hash", build.hash())
                    .field("build_date", build.date())
                    .field("build_snapshot", build.isSnapshot())
                    .field("lucene_version", org.apache.lucene.util.Version.LATEST.toString())
                    .field("minimum_wire_compatibility_version", build.minWireCompatVersion())
                    .field("minimum_index_compatibility_version", build.minIndexCompatVersion())
                    .endObject();
                b.field("tagline", "You Know, for Search");
                b.endObject();
                channel.sendResponse(new RestResponse(RestStatus.OK, b));
            };
        }
    }
}
